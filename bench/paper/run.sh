#!/usr/bin/env bash
# The paper's research questions on sift, end to end (bench/paper/README.md):
#   bash bench/paper/run.sh [--quick] [--fresh] [--work DIR] [--report FILE]
# Builds sift (with the trainer), then runs bench/paper/study.py, which writes
# bench/paper/REPORT.md and its plots. --quick: smaller sizes, 13 minutes on 2 cores;
# the full run 46 minutes. An interrupted run continues where it stopped (same --work).
set -euo pipefail
cd "$(dirname "$0")/../.."
make build >/dev/null
export OMP_WAIT_POLICY=passive  # idle OpenMP threads sleep: libtorch and the engine share 2 cores
exec /usr/bin/python3 bench/paper/study.py "$@"
