#!/usr/bin/env bash
# A program that links sift::sift reaches include/sift/ and nothing else: in this build tree,
# a file including <sift/sift.h> compiles against it and one including an internal header
# ("scoring/plan.h") does not, for want of the header (every library's src/ is PRIVATE).
# Usage: bash header_boundary.sh <build-dir>
set -euo pipefail
BUILD=$1
OUT=$(mktemp)
trap 'rm -f "$OUT"' EXIT
cmake --build "$BUILD" --target api_public_header_probe > "$OUT" 2>&1 || { cat "$OUT" >&2; echo "FAIL: <sift/sift.h> does not compile for a consumer" >&2; exit 1; }
if cmake --build "$BUILD" --target api_internal_header_probe > "$OUT" 2>&1; then
  echo "FAIL: a consumer of sift::sift compiled with an internal header" >&2; exit 1
fi
grep -q 'scoring/plan.h: No such file or directory' "$OUT" || { cat "$OUT" >&2; echo "FAIL: not refused for the header" >&2; exit 1; }
echo "PASS"
