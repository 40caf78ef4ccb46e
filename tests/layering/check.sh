#!/usr/bin/env bash
# The layering check (tools/check_layering.py) on this tree, which must pass, and on copies of
# it with one include against the arrows added, which must fail naming the file and the
# include: a kernel including a model header (kernels know no model config), the engine's API
# including a file format, a batch file including the label store, the Python binding
# including an internal header, the label loop including the scheduler.
# Usage: bash check.sh <layering.json> <source-dir>
set -euo pipefail
LAYERING=$1
SRC=$2
CHECK="python3 $SRC/tools/check_layering.py"
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

$CHECK "$LAYERING" "$SRC"

expect_refused() {  # FILE (relative to the tree) INCLUDE-LINE
  rm -rf "$WORK/tree"
  mkdir -p "$WORK/tree"
  cp -r "$SRC/src" "$SRC/python" "$WORK/tree/"
  printf '%s\n' "$2" >> "$WORK/tree/$1"
  if $CHECK "$LAYERING" "$SRC" "$WORK/tree" > "$WORK/out.txt"; then
    echo "FAIL: $1 with $2 passed the layering check" >&2; exit 1
  fi
  grep -qF "$1" "$WORK/out.txt" || { echo "FAIL: the check did not name $1:" >&2; cat "$WORK/out.txt" >&2; exit 1; }
}
expect_refused src/kernels/rope.cpp '#include "model/config.h"'
expect_refused src/api/labeler.cpp '#include "formats/score_io.h"'
expect_refused src/scoring/scheduler.cpp '#include "sift/lines.h"'
expect_refused src/batch/run_batch.cpp '#include "store/label_store.h"'
expect_refused src/scoring/engine.cpp '#include <httplib.h>'
expect_refused python/src/rows.cpp '#include "io/row_items.h"'
expect_refused src/apps/cmd_score.cpp '#include "scoring/loaded_labeler.h"'
expect_refused src/label/round_judge.cpp '#include "scoring/scheduler.h"'
echo "PASS"
