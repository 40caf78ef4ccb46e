#!/usr/bin/env python3
"""Table and plot of bench_scoring results.

    build/bench/bench_scoring --benchmark_format=json --benchmark_out=scoring.json ...
    python3 bench/bench_scoring_plot.py scoring.json [more.json ...] [--png bench/scoring.png]

Prints a markdown table (one row per preset and N, the modes side by side in labels per
CPU-second, the ratios mis/independent and mis/prefix, and the mis run's time and peak
memory) and, when gnuplot is installed, draws labels per CPU-second against N for every
mode (log-log) into the PNG. Standard library only.

Rates are per second of process CPU time (all threads), which stays meaningful on a shared
machine; on an idle one, wall-clock labels/s ~= this x threads. A baseline capped below
some N (bench_scoring --max-n) shows, marked *, its rate at the largest N measured: its
per-label cost does not depend on N.
"""
import argparse
import collections
import json
import os
import shutil
import subprocess
import tempfile

MODES = ["mis", "prefix", "independent", "generate"]


def load(paths):
    runs = [run for path in paths for run in json.load(open(path))["benchmarks"]]
    table = collections.defaultdict(dict)  # (preset, N) -> mode -> run
    for run in runs:
        name = run["run_name"] if "run_name" in run else run["name"]
        preset, rest = name.split("/", 1)
        mode, n_part = rest.split("/", 1)
        n = int(n_part.split(":")[1].split("/")[0])
        table[(preset, n)][mode] = run
    return table


def fmt(x, digits=0):
    return "-" if x is None else f"{x:,.{digits}f}"


RATE = "labels_per_cpu_s"


def markdown(table):
    lines = ["| shape | N | " + " | ".join(MODES)
             + " | mis / independent | mis / prefix | mis wall ms | mis CPU s | mis peak MiB (activations) |",
             "|---" * (len(MODES) + 7) + "|"]
    last_rate = {}  # (preset, mode) -> rate at the largest N measured so far
    for (preset, n) in sorted(table):
        runs = table[(preset, n)]
        rate, cells = {}, []
        for m in MODES:
            if m in runs:
                rate[m] = last_rate[(preset, m)] = runs[m][RATE]
                cells.append(fmt(rate[m], 2))
            elif (preset, m) in last_rate:
                rate[m] = last_rate[(preset, m)]
                cells.append(fmt(rate[m], 2) + "*")
            else:
                rate[m] = None
                cells.append("-")
        ratio = lambda other: fmt(rate["mis"] / rate[other], 1) + "x" if rate["mis"] and rate[other] else "-"
        mis = runs.get("mis")
        mis_time = mis["real_time"] if mis else None
        mis_cpu = n / mis[RATE] if mis else None
        memory = f"{fmt(mis['peak_mb'])} ({fmt(mis['act_mb'])})" if mis else "-"
        lines.append(f"| {preset} | {n} | " + " | ".join(cells)
                     + f" | {ratio('independent')} | {ratio('prefix')} | {fmt(mis_time)} | {fmt(mis_cpu, 1)} | {memory} |")
    return "\n".join(lines)


def plot(table, png):
    if not shutil.which("gnuplot"):
        print("(gnuplot not installed: no plot)")
        return
    presets = sorted({p for p, _ in table})
    with tempfile.TemporaryDirectory() as tmp:
        plots = []
        for preset in presets:
            for mode in MODES:
                points = [(n, table[(p, n)][mode][RATE]) for (p, n) in sorted(table)
                          if p == preset and mode in table[(p, n)]]
                if not points:
                    continue
                data = os.path.join(tmp, f"{preset}_{mode}.dat")
                with open(data, "w") as out:
                    out.writelines(f"{n} {rate}\n" for n, rate in points)
                dash = "" if preset == presets[0] else " dashtype 2"
                plots.append(f"'{data}' using 1:2 with linespoints lw 2{dash} title '{preset} {mode}'")
        script = f"""
set terminal png size 900,600
set output '{png}'
set title 'sift scoring throughput (Lq = 744, Li = 28 tokens)'
set xlabel 'items per row N'
set ylabel 'labels per CPU-second'
set logscale xy
set grid
set key outside right
plot {", ".join(plots)}
"""
        subprocess.run(["gnuplot"], input=script, text=True, check=True)
    print(f"(plot written to {png})")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("results", nargs="+", help="bench_scoring --benchmark_format=json output(s), merged")
    parser.add_argument("--png", default=os.path.join(os.path.dirname(__file__), "scoring.png"))
    args = parser.parse_args()
    table = load(args.results)
    print(markdown(table))
    plot(table, args.png)


if __name__ == "__main__":
    main()
