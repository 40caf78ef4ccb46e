#!/usr/bin/env bash
# A program that links sift::sift reaches include/sift/ and nothing else: in this build tree,
# a file including <sift/sift.h>, and one per public header including it alone, compile
# against it, and one including an internal header ("scoring/plan.h") does not, for want of
# the header (every library's src/ is PRIVATE). No public header has the name of an internal
# one (a reader of sift's code never wonders which "weights.h" is meant), but for an internal
# header that extends the public one it includes.
# Usage: bash header_boundary.sh <build-dir>
set -euo pipefail
BUILD=$1
OUT=$(mktemp)
trap 'rm -f "$OUT"' EXIT
cmake --build "$BUILD" --target api_public_header_probe > "$OUT" 2>&1 || { cat "$OUT" >&2; echo "FAIL: a public header does not compile alone for a consumer" >&2; exit 1; }
if cmake --build "$BUILD" --target api_internal_header_probe > "$OUT" 2>&1; then
  echo "FAIL: a consumer of sift::sift compiled with an internal header" >&2; exit 1
fi
grep -q 'scoring/plan.h: No such file or directory' "$OUT" || { cat "$OUT" >&2; echo "FAIL: not refused for the header" >&2; exit 1; }
SRC=$(cd "$(dirname "$0")/../.." && pwd)
for header in "$SRC"/include/sift/*.h; do
  name=$(basename "$header")
  for internal in $(cd "$SRC/src" && find . -name "$name" | sed 's|^\./||'); do
    # Only an internal header that extends the public one (includes it) may share its name:
    # core/error.h adds fail() to sift/error.h's classes.
    grep -q "#include \"sift/$name\"" "$SRC/src/$internal" ||
      { echo "FAIL: the public header sift/$name has the name of src/$internal" >&2; exit 1; }
  done
done
echo "PASS"
