#!/usr/bin/env bash
# End to end: `sift batch` writing to a disk that fills up stops with a one-line error naming
# the file and the reason, and once there is room, --resume completes the job with the bytes
# of an uninterrupted run. Two real ways to make writes fail:
#   - a small tmpfs (mounted here when the machine allows it: root with mount rights, or a
#     user namespace through `unshare -rm`): ENOSPC, then remounted larger;
#   - a file-size limit (`ulimit -f`), which needs no privilege: EFBIG (sift ignores SIGXFSZ).
# Where no tmpfs can be mounted, the file-size limit is still checked and the script exits 77
# (ctest: skipped), so the missing half is visible.
# Usage: bash batch_disk_full.sh <sift-binary> <source-dir>
set -euo pipefail
SIFT=$1
SRC=$2
WORK=$(mktemp -d)
cleanup() {
  if mountpoint -q "$WORK/small" 2>/dev/null; then umount "$WORK/small" || true; fi
  rm -rf "$WORK"
}
trap cleanup EXIT

MODEL=$WORK/labeler
source "$SRC/tests/e2e/lib/tiny_labeler.sh"
make_tiny_labeler "$SIFT" "$SRC" "$MODEL" 5
PYTHONPATH="$SRC/tests/e2e/lib" python3 -c "
from batch_checks import make_rows, write
write('$WORK/rows.jsonl', make_rows(900, seed=4, bad_every=70))"
export OMP_NUM_THREADS=1
Q=(--threads 1 --quiet --checkpoint-seconds 0)
"$SIFT" batch --model "$MODEL" --input "$WORK/rows.jsonl" --output "$WORK/reference.jsonl" "${Q[@]}" >/dev/null
REF_BYTES=$(stat -c %s "$WORK/reference.jsonl")
fail() { echo "FAIL: $*" >&2; exit 1; }

# expect_failure OUT ERRFILE: the run failed with a one-line error naming OUT.
expect_failure() {
  local out=$1 err=$2 status=$3 reason=$4
  [ "$status" -ne 0 ] || fail "the run into $out succeeded on a full disk"
  [ "$(grep -c 'sift: error:' "$err")" -eq 1 ] || fail "not one error line: $(cat "$err")"
  grep -q "$out" "$err" || grep -q "$(basename "$out")" "$err" || fail "the error does not name the file: $(cat "$err")"
  grep -q "$reason" "$err" || fail "the error does not say '$reason': $(cat "$err")"
}

# 1. A file-size limit: writes past it fail with EFBIG.
OUT=$WORK/limited.jsonl
set +e
( ulimit -f $((REF_BYTES / 2 / 1024)); "$SIFT" batch --model "$MODEL" --input "$WORK/rows.jsonl" --output "$OUT" "${Q[@]}" ) \
  >/dev/null 2>"$WORK/err1"
status=$?
set -e
expect_failure "$OUT" "$WORK/err1" $status "File too large"
[ -f "$OUT.progress" ] || fail "no checkpoint after the failed write"
"$SIFT" batch --model "$MODEL" --input "$WORK/rows.jsonl" --output "$OUT" "${Q[@]}" --resume >/dev/null
cmp -s "$OUT" "$WORK/reference.jsonl" || fail "after the file-size limit, --resume gave other bytes"
echo "batch_disk_full: file-size limit: clear error, then --resume completed the job" >&2

# 2. A full tmpfs, where this machine lets us mount one.
run_tmpfs() {
  local small=$1
  local out=$small/out.jsonl
  set +e
  "$SIFT" batch --model "$MODEL" --input "$WORK/rows.jsonl" --output "$out" "${Q[@]}" >/dev/null 2>"$WORK/err2"
  local status=$?
  set -e
  expect_failure "$out" "$WORK/err2" $status "No space left on device"
  mount -o remount,size=4m "$small"
  "$SIFT" batch --model "$MODEL" --input "$WORK/rows.jsonl" --output "$out" "${Q[@]}" --resume >/dev/null
  cmp -s "$out" "$WORK/reference.jsonl" || fail "after the full tmpfs, --resume gave other bytes"
}
mkdir -p "$WORK/small"
SIZE=$((REF_BYTES / 2))
if mount -t tmpfs -o size=$SIZE tmpfs "$WORK/small" 2>/dev/null; then
  run_tmpfs "$WORK/small"
  umount "$WORK/small"
  echo "batch_disk_full: tmpfs of $SIZE bytes: clear error, then --resume completed the job" >&2
elif unshare -rm true 2>/dev/null; then
  export SIFT MODEL WORK SIZE REF_BYTES
  export -f run_tmpfs expect_failure fail
  unshare -rm bash -c 'set -euo pipefail; Q=(--threads 1 --quiet --checkpoint-seconds 0);
    mount -t tmpfs -o size=$SIZE tmpfs "$WORK/small"; run_tmpfs "$WORK/small"'
  echo "batch_disk_full: tmpfs of $SIZE bytes (user namespace): clear error, then --resume completed the job" >&2
else
  echo "batch_disk_full: SKIPPED: no tmpfs can be mounted here (no mount rights, no user namespaces): only the file-size limit was tested" >&2
  exit 77
fi
