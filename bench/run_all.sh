#!/usr/bin/env bash
# Runs every benchmark program; see bench/README.md for what each measures.
set -euo pipefail
cd "$(dirname "$0")/.."
for b in build/bench/bench_*; do echo "== $b"; "$b"; done
