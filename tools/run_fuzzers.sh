#!/usr/bin/env bash
# Runs every libFuzzer target of a fuzz build for a bounded time; fails if any crashes.
#   tools/run_fuzzers.sh BUILD_DIR SECONDS      (make fuzz: BUILD_DIR=build-fuzz)
# Each target <build>/fuzz/fuzz_X starts from the committed seeds fuzz/corpus/fuzz_X/ (read
# only: new inputs go to <build>/fuzz-work/fuzz_X/corpus/) and the dictionary fuzz/fuzz_X.dict
# if there is one. Every fuzz/fuzz_X.cpp must have seeds: a target without any fails the run
# before anything is fuzzed. A crashing input is kept in <build>/fuzz-work/fuzz_X/artifacts/.
# Allocations over 256 MB count as crashes: broken input must never cause a huge allocation.
# One input running past FUZZ_UNIT_TIMEOUT seconds (default 60: a target's first input may
# load a large tokenizer, slowly under ASan) counts as a hang.
set -euo pipefail
if [ $# -lt 1 ] || [ $# -gt 2 ]; then
  echo "usage: $0 BUILD_DIR [SECONDS]" >&2
  exit 2
fi
build_dir=$(cd "$1" && pwd)
seconds=${2:-30}
root=$(cd "$(dirname "$0")/.." && pwd)

shopt -s nullglob
targets=("$build_dir"/fuzz/fuzz_*)
if [ ${#targets[@]} -eq 0 ]; then
  echo "run_fuzzers: no fuzz targets in $build_dir/fuzz (build the fuzz_targets target first)" >&2
  exit 1
fi

without_seeds=()
for source in "$root"/fuzz/fuzz_*.cpp; do
  name=$(basename "$source" .cpp)
  [ -n "$(ls -A "$root/fuzz/corpus/$name" 2>/dev/null)" ] || without_seeds+=("$name")
done
if [ ${#without_seeds[@]} -gt 0 ]; then
  echo "run_fuzzers: no seed corpus in fuzz/corpus/<target>/ for: ${without_seeds[*]}" >&2
  exit 1
fi

export ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=1:detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}
failed=()
for target in "${targets[@]}"; do
  [ -x "$target" ] || continue
  name=$(basename "$target")
  work="$build_dir/fuzz-work/$name"
  mkdir -p "$work/corpus" "$work/artifacts"
  args=(-max_total_time="$seconds" -timeout="${FUZZ_UNIT_TIMEOUT:-60}" -rss_limit_mb=2048 -malloc_limit_mb=256
        -print_final_stats=1 -artifact_prefix="$work/artifacts/")
  [ -f "$root/fuzz/$name.dict" ] && args+=(-dict="$root/fuzz/$name.dict")
  corpora=("$work/corpus" "$root/fuzz/corpus/$name")
  echo "run_fuzzers: $name for ${seconds}s"
  if "$target" "${args[@]}" "${corpora[@]}" >"$work/log" 2>&1; then
    grep -E "stat::number_of_executed_units|stat::new_units_added" "$work/log" | sed "s/^/  /" || true
  else
    echo "run_fuzzers: $name FAILED (log: $work/log, inputs: $work/artifacts/)" >&2
    tail -n 40 "$work/log" >&2
    failed+=("$name")
  fi
done
if [ ${#failed[@]} -gt 0 ]; then
  echo "run_fuzzers: ${#failed[@]} target(s) failed: ${failed[*]}" >&2
  exit 1
fi
echo "run_fuzzers: all ${#targets[@]} target(s) ran ${seconds}s without a crash"
