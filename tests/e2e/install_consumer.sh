#!/usr/bin/env bash
# The public library as a user meets it: `cmake --install` into a temporary prefix, build
# examples/library (find_package(sift), link sift::sift, include <sift/sift.h> only) against
# it, and check that its scores for a row are bitwise those of `sift score` on the same row
# with the bundled labeler. Twice: from this build, and from the engine alone, configured from
# the source with every optional component (and the CLI, tests, benchmarks) off and the
# packages only they use out of reach (CMAKE_DISABLE_FIND_PACKAGE_*, a pkg-config path that
# holds only PCRE2's and utf8proc's files), so it is shown to need nothing more than
# nlohmann-json, fmt, spdlog, PCRE2, utf8proc and OpenMP.
# Usage: bash install_consumer.sh <sift-binary> <source-dir>
set -euo pipefail
SIFT=$1
SRC=$2
BUILD=$(dirname "$SIFT")
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

# The engine alone: configured with only its own packages in reach, built (a few files per
# compiler run: what is checked is what it needs, in a fraction of the time), installed.
mkdir -p "$WORK/pkgconfig"
for module in libpcre2-8 libutf8proc; do
  cp "$(pkg-config --variable pcfiledir $module)/$module.pc" "$WORK/pkgconfig/"
done
LAUNCHER=()
if command -v ccache >/dev/null; then LAUNCHER=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache); fi
DISABLED=()
for package in CLI11 OpenSSL SQLite3 ZLIB Boost Torch GTest benchmark BLAS pybind11 Python3; do
  DISABLED+=("-DCMAKE_DISABLE_FIND_PACKAGE_$package=ON")
done
PKG_CONFIG_LIBDIR="$WORK/pkgconfig" PKG_CONFIG_PATH="" cmake -S "$SRC" -B "$WORK/engine-build" -G Ninja \
  -DCMAKE_BUILD_TYPE=Release -DSIFT_BUILD_CLI=OFF -DSIFT_BUILD_SERVE=OFF -DSIFT_BUILD_BATCH=OFF \
  -DSIFT_BUILD_LABEL=OFF -DSIFT_BUILD_HUB=OFF -DSIFT_BUILD_TRAIN=OFF -DSIFT_BUILD_PYTHON=OFF -DSIFT_BUILD_TESTS=OFF \
  -DSIFT_BUILD_BENCH=OFF -DCMAKE_UNITY_BUILD=ON "${DISABLED[@]}" "${LAUNCHER[@]}" > "$WORK/engine-configure.txt" 2>&1 ||
  { cat "$WORK/engine-configure.txt" >&2; echo "FAIL: the engine alone does not configure" >&2; exit 1; }
cmake --build "$WORK/engine-build" -j 2 > "$WORK/engine-build.txt" 2>&1 ||
  { tail -30 "$WORK/engine-build.txt" >&2; echo "FAIL: the engine alone does not build" >&2; exit 1; }

# Installs a build into a prefix, builds examples/library against it and holds its scores to
# `sift score`'s, bit for bit.
check_consumer() {  # BUILD-DIR NAME
  local prefix="$WORK/$2-prefix" out="$WORK/$2"
  cmake --install "$1" --prefix "$prefix" >/dev/null
  [ -f "$prefix/include/sift/sift.h" ] || { echo "FAIL: $2: include/sift/sift.h not installed" >&2; exit 1; }
  if [ "$(ls "$prefix/include")" != sift ]; then
    echo "FAIL: $2: internal headers installed: $(ls "$prefix/include")" >&2; exit 1
  fi
  cmake -S "$SRC/examples/library" -B "$out" -G Ninja -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
  cmake --build "$out" >/dev/null
  "$out/label_one" "$MODEL" "Backend engineer, Python and Kubernetes" "Python" "Kubernetes" "Cooking" > "$out.lib.txt"
  python3 - "$out.lib.txt" "$WORK/cli.jsonl" "$2" <<'PY'
import json, sys
lines = open(sys.argv[1]).read().splitlines()
cli = json.loads(open(sys.argv[2]).readline())
lib = [float(l.split()[0]) for l in lines[:3]]
labels = [l.split()[1] == "true" for l in lines[:3]]
assert lib == cli["scores"], f"{sys.argv[3]}: library {lib} vs sift score {cli['scores']}"
assert labels == cli["labels"], f"{sys.argv[3]}: library {labels} vs sift score {cli['labels']}"
assert lines[3].startswith("version "), lines[3]
print(f"{sys.argv[3]}: library and CLI agree bitwise:", lib)
PY
  # A bad directory is a sift::Error with the path in it, not a crash.
  if "$out/label_one" "$WORK/nowhere" q x 2> "$WORK/err.txt"; then echo "FAIL: $2: no error" >&2; exit 1; fi
  grep -q "nowhere: does not exist" "$WORK/err.txt" || { cat "$WORK/err.txt" >&2; exit 1; }
}

MODEL=$SRC/models/default-labeler
echo '{"query": "Backend engineer, Python and Kubernetes", "items": ["Python", "Kubernetes", "Cooking"]}' |
  "$SIFT" score --model "$MODEL" > "$WORK/cli.jsonl"
check_consumer "$BUILD" full
check_consumer "$WORK/engine-build" engine-only
[ ! -e "$WORK/engine-only-prefix/bin/sift" ] || { echo "FAIL: the engine-only install has a sift binary" >&2; exit 1; }
echo "PASS"
