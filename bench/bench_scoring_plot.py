#!/usr/bin/env python3
"""Table and plot of bench_scoring results.

    build/bench/bench_scoring --benchmark_format=json --benchmark_out=scoring.json ...
    python3 bench/bench_scoring_plot.py scoring.json [--png bench/scoring.png]

Prints a markdown table (one row per preset and N, the modes side by side in labels/s, the
ratios mis/independent and mis/prefix, and the mis run's peak memory) and, when gnuplot is
installed, draws labels/s against N for every mode (log-log) into the PNG. Standard library
only.
"""
import argparse
import collections
import json
import os
import shutil
import subprocess
import tempfile

MODES = ["mis", "prefix", "independent", "generate"]


def load(path):
    runs = json.load(open(path))["benchmarks"]
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


def markdown(table):
    lines = ["| shape | N | " + " | ".join(f"{m} labels/s" for m in MODES)
             + " | mis / independent | mis / prefix | mis time (ms) | mis peak MiB (act) |",
             "|---" * (len(MODES) + 7) + "|"]
    for (preset, n) in sorted(table):
        runs = table[(preset, n)]
        rate = {m: runs[m]["labels_per_s"] if m in runs else None for m in MODES}
        mis = runs.get("mis")
        ratio = lambda other: fmt(rate["mis"] / rate[other], 1) + "x" if rate["mis"] and rate[other] else "-"
        mis_time = mis["real_time"] if mis else None
        memory = f"{fmt(mis['peak_mb'])} ({fmt(mis['act_mb'])})" if mis else "-"
        lines.append(f"| {preset} | {n} | " + " | ".join(fmt(rate[m], 1) for m in MODES)
                     + f" | {ratio('independent')} | {ratio('prefix')} | {fmt(mis_time, 1)} | {memory} |")
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
                points = [(n, table[(p, n)][mode]["labels_per_s"]) for (p, n) in sorted(table)
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
set ylabel 'labels / s'
set logscale xy
set grid
set key outside right
plot {", ".join(plots)}
"""
        subprocess.run(["gnuplot"], input=script, text=True, check=True)
    print(f"(plot written to {png})")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("results", help="bench_scoring --benchmark_format=json output")
    parser.add_argument("--png", default=os.path.join(os.path.dirname(__file__), "scoring.png"))
    args = parser.parse_args()
    table = load(args.results)
    print(markdown(table))
    plot(table, args.png)


if __name__ == "__main__":
    main()
