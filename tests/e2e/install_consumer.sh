#!/usr/bin/env bash
# The public library as a user meets it: `cmake --install` into a temporary prefix, build
# examples/library (find_package(sift), link sift::sift, include <sift/sift.h> only) against
# it, and check that its scores for a row are bitwise those of `sift score` on the same row
# with the bundled labeler.
# Usage: bash install_consumer.sh <sift-binary> <source-dir>
set -euo pipefail
SIFT=$1
SRC=$2
BUILD=$(dirname "$SIFT")
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

cmake --install "$BUILD" --prefix "$WORK/prefix" >/dev/null
[ -f "$WORK/prefix/include/sift/sift.h" ] || { echo "FAIL: include/sift/sift.h not installed" >&2; exit 1; }
if ls "$WORK/prefix/include" | grep -qv '^sift$'; then
  echo "FAIL: internal headers installed: $(ls "$WORK/prefix/include")" >&2; exit 1
fi
cmake -S "$SRC/examples/library" -B "$WORK/build" -G Ninja -DCMAKE_PREFIX_PATH="$WORK/prefix" >/dev/null
cmake --build "$WORK/build" >/dev/null

MODEL=$SRC/models/default-labeler
"$WORK/build/label_one" "$MODEL" "Backend engineer, Python and Kubernetes" "Python" "Kubernetes" "Cooking" > "$WORK/lib.txt"
echo '{"query": "Backend engineer, Python and Kubernetes", "items": ["Python", "Kubernetes", "Cooking"]}' |
  "$SIFT" score --model "$MODEL" > "$WORK/cli.jsonl"
python3 - "$WORK/lib.txt" "$WORK/cli.jsonl" <<'PY'
import json, sys
lines = open(sys.argv[1]).read().splitlines()
cli = json.loads(open(sys.argv[2]).readline())
lib = [float(l.split()[0]) for l in lines[:3]]
labels = [l.split()[1] == "true" for l in lines[:3]]
assert lib == cli["scores"], f"library {lib} vs sift score {cli['scores']}"
assert labels == cli["labels"], f"library {labels} vs sift score {cli['labels']}"
assert lines[3].startswith("version "), lines[3]
print("library and CLI agree bitwise:", lib)
PY
# A bad directory is a sift::Error with the path in it, not a crash.
if "$WORK/build/label_one" "$WORK/nowhere" q x 2> "$WORK/err.txt"; then echo "FAIL: no error" >&2; exit 1; fi
grep -q "nowhere: not a model directory" "$WORK/err.txt" || { cat "$WORK/err.txt" >&2; exit 1; }
echo "PASS"
