#!/usr/bin/env bash
# The paper's research questions on sift, end to end (bench/paper/README.md):
#   bash bench/paper/run.sh [--quick] [--seeds N] [--rq1-only] [--fresh] [--throughput] [--work DIR]
#                           [--report FILE] [--sift BINARY] [--sizes S,...] [--train-threads N] [--jobs N]
# Builds sift (with the trainer), then runs bench/paper/study.py, which writes
# bench/paper/REPORT.md and its plots. --quick: smaller sizes (at most 25 minutes on 2 idle
# cores; the full run about 6-7 hours). An interrupted run continues where it stopped (same
# --work); --throughput re-measures only the throughput steps with the labelers already
# trained (for a quiet machine). --seeds N and --rq1-only make a smaller run for a busy
# machine (the report says what was left out). --sift BINARY runs that build (sift-train beside
# it) and builds nothing. Training cells run --jobs at a time (default: the cores divided by
# --train-threads, default 1). Exit status 3: the report was written, but a labeler failed the
# validity check (within 5 points of a candidate-blind baseline).
set -euo pipefail
cd "$(dirname "$0")/../.."
[[ " $* " == *" --sift "* ]] || make build >/dev/null
export OMP_WAIT_POLICY=passive  # idle OpenMP threads sleep: libtorch and the engine share 2 cores
exec /usr/bin/python3 bench/paper/study.py "$@"
