#!/usr/bin/env bash
# Start-up time of the scoring binary against the trainer, side by side in one run:
# `sift --help` (no libtorch) and `sift-train --help` (links libtorch), alternating, N runs
# each; prints the median wall and CPU (user + system) milliseconds of each and their ratio.
#   bash bench/startup.sh [BUILD_DIR] [N]      (default: build, 21)
set -euo pipefail
build=${1:-build}
n=${2:-21}
[ -x "$build/sift" ] || { echo "startup: no $build/sift (build it first)" >&2; exit 1; }
python3 - "$build" "$n" <<'PY'
import os, resource, statistics, subprocess, sys, time
build, n = sys.argv[1], int(sys.argv[2])
programs = [os.path.join(build, "sift")]
if os.path.exists(os.path.join(build, "sift-train")):
    programs.append(os.path.join(build, "sift-train"))
wall = {p: [] for p in programs}
cpu = {p: [] for p in programs}
for _ in range(n):
    for p in programs:
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        subprocess.run([p, "--help"], stdout=subprocess.DEVNULL, check=True)
        wall[p].append(1000 * (time.perf_counter() - start))
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu[p].append(1000 * (after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime))
print(f"{'program':<24} {'wall ms':>8} {'CPU ms':>8}   (medians of {n}, --help)")
for p in programs:
    print(f"{os.path.basename(p):<24} {statistics.median(wall[p]):8.1f} {statistics.median(cpu[p]):8.1f}")
if len(programs) == 2:
    a, b = (statistics.median(wall[p]) for p in programs)
    print(f"sift-train / sift: {b / a:.1f}x wall")
PY
