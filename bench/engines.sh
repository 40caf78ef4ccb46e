#!/usr/bin/env bash
# What scoring on engines costs (sift --engine, docs/engines.md): `sift batch` on this machine
# against `sift batch --engine` on one `sift serve` on loopback (the protocol's cost: HTTP,
# JSON, the client's planning) and on two, each with one compute thread, on the same rows, in
# interleaved repetitions: labels per second from each run's summary, and labels per
# CPU-second of everything that ran (the client and the servers it used, from getrusage and
# /proc/PID/stat: on a shared machine the fairer measure of what the protocol costs),
# medians; fails unless every run wrote the same bytes.
# Usage: bash bench/engines.sh [BUILD_DIR] [ROWS] [REPS] [LABELER_DIR]   (default models/default-labeler)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
rows=${2:-2000}
reps=${3:-3}
work=$(mktemp -d)
servers=()
cleanup() {
  for pid in "${servers[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
model=${4:-models/default-labeler}
for k in 1 2; do
  OMP_NUM_THREADS=1 "$build/sift" serve --model "$model" --threads 1 --port 0 --port-file "$work/$k.port" \
    2> "$work/$k.log" &
  servers+=($!)
done
until test -s "$work/1.port" && test -s "$work/2.port"; do sleep 0.1; done
for k in 1 2; do curl -sf --retry 30 --retry-connrefused "localhost:$(cat "$work/$k.port")/health" > /dev/null; done
one="http://127.0.0.1:$(cat "$work/1.port")"
two="$one,http://127.0.0.1:$(cat "$work/2.port")"
PYTHONPATH=tests/e2e/lib python3 - "$build/sift" "$model" "$work" "$rows" "$reps" "$one" "$two" "${servers[@]}" <<'PY'
import json, os, resource, statistics, subprocess, sys
from batch_checks import make_rows
sift, model, work, n_rows, reps, one, two = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5]), sys.argv[6], sys.argv[7]
server_pids = [int(p) for p in sys.argv[8:10]]
TICK = os.sysconf("SC_CLK_TCK")


def server_cpu(pid):
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK  # utime + stime


def children_cpu():
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime
rows = f"{work}/rows.jsonl"
open(rows, "w").write(make_rows(n_rows, seed=5))
env = dict(os.environ, OMP_NUM_THREADS="1", OMP_WAIT_POLICY="passive")
configs = {"in-process (1 thread)": ([], []), "1 x sift serve --threads 1": (["--engine", one], server_pids[:1]),
           "2 x sift serve --threads 1": (["--engine", two], server_pids)}
rates = {name: [] for name in configs}
per_cpu = {name: [] for name in configs}
outputs = set()
for rep in range(reps):
    for k, (name, (extra, pids)) in enumerate(configs.items()):
        out = f"{work}/out-{rep}-{k}.jsonl"
        cpu_before = children_cpu() + sum(server_cpu(p) for p in pids)
        summary = json.loads(subprocess.run([sift, "-q", "batch", "--model", model, "--input", rows, "--output", out,
                                             "--threads", "1", *extra], check=True, capture_output=True, text=True,
                                            env=env).stdout)
        cpu = children_cpu() + sum(server_cpu(p) for p in pids) - cpu_before
        rates[name].append(summary["labels_per_second"])
        per_cpu[name].append(summary["labels"] / cpu)
        outputs.add(open(out, "rb").read())
assert len(outputs) == 1, "the runs wrote different bytes"
base = statistics.median(rates["in-process (1 thread)"])
base_cpu = statistics.median(per_cpu["in-process (1 thread)"])
print(f"{n_rows} rows (tests/e2e/lib/batch_checks.py make_rows), {model}, medians of {reps} interleaved runs")
print("| sift batch | labels/s | vs in-process | labels per CPU-second (client + servers) | vs in-process |")
print("|---|---|---|---|---|")
for name in configs:
    median, median_cpu = statistics.median(rates[name]), statistics.median(per_cpu[name])
    print(f"| {name} | {median:,.0f} | {median / base:.2f}x | {median_cpu:,.0f} | {median_cpu / base_cpu:.2f}x |")
print("outputs: the same bytes in every run")
PY
