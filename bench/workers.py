#!/usr/bin/env python3
"""Contexts on one shared model, side by side in one run: (a) the Python package, two threads
scoring on one sift.Labeler against one thread; (b) `sift serve --workers 2` against
`--workers 1` under `sift loadgen`.

    make python && PYTHONPATH=build/python python3 bench/workers.py [--sift build/sift]
        [--model models/default-labeler] [--repeats 3] [--seconds 8] [--json FILE]

Rows: one query of ~300 tokens and 16 items of ~12 tokens each, distinct queries (so no row
reuses another's query keys), from the labeler's own tokenizer. Each contender runs in a
process of its own (so its peak RSS is its own), the contenders interleaved in each of
--repeats rounds; the tables give medians:

  python 1x1   sift.Labeler(model, threads=1), one Python thread calling score_rows on 4 rows
               at a time, for --seconds: one core
  python 1xall sift.Labeler(model) (threads=None), one Python thread: it gets every core
  python 2x1   sift.Labeler(model) (threads=None), two Python threads at once: each gets a
               context of its own on the one model and half the cores, the GIL released
               while they score
  serve wN     `sift serve --threads 2 --workers N --kv-cache-mb 0`, `sift loadgen
               --closed-loop --connections 4` for --seconds (after one warm-up request)

Per contender: labels/s (wall), labels per CPU-second (user + system of the process doing the
scoring: the Python process, or the server), their quotient, the CPU-seconds it got per second
(two contexts can only beat one where the machine gives them two cores), and peak RSS (the Python process's ru_maxrss; the
server's VmHWM). The targets: python 2x1 / 1x1 >= 1.6 in labels/s with peak RSS <= 1.15x
(the ratios to 1xall are printed too); serve w2 / w1 likewise. On a shared machine wall-clock rates move with the other load: the
load average (/proc/loadavg) is printed before and after each run, and labels per CPU-second
show whether the work itself changed.
"""
import os

os.environ.setdefault("OMP_WAIT_POLICY", "passive")  # before libgomp loads: idle threads sleep

import argparse
import json
import pathlib
import random
import resource
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

REPOSITORY = pathlib.Path(__file__).resolve().parent.parent
WORDS = ("engineer years experience built led team platform data services python kubernetes payments search "
         "customers migrated scaled reliability latency pipeline warehouse analytics mentoring hiring roadmap "
         "design review incident cloud security compliance budget vendor product launch growth").split()
QUERY_WORDS, ITEM_WORDS, ITEMS, ROWS_PER_CALL = 150, 6, 16, 4


def load_average():
    return " ".join(open("/proc/loadavg").read().split()[:3])


def make_rows(path, n_rows, seed=1):
    rng = random.Random(seed)
    words = lambda n: " ".join(rng.choice(WORDS) for _ in range(n))
    with open(path, "w") as f:
        for r in range(n_rows):
            f.write(json.dumps({"query": f"profile {r}: " + words(QUERY_WORDS),
                                "items": [words(ITEM_WORDS) for _ in range(ITEMS)]}) + "\n")
    return path


# ---- (a) the Python package: run in a child process per contender -------------------------------

def python_child(model, rows_path, threads, labeler_threads, seconds):
    import sift
    rows = [json.loads(line) for line in open(rows_path)]
    rows = [(r["query"], r["items"]) for r in rows]
    labeler = sift.Labeler(model, threads=labeler_threads or None)
    labeler.score_rows(rows[:ROWS_PER_CALL])  # warm-up: the context's buffers grow once
    labels, lock = [0] * threads, threading.Lock()
    stop_at = time.monotonic() + seconds
    cpu0 = resource.getrusage(resource.RUSAGE_SELF)

    def worker(t):
        k = t * 997
        while time.monotonic() < stop_at:
            batch = [rows[(k + j) % len(rows)] for j in range(ROWS_PER_CALL)]
            k += ROWS_PER_CALL * threads
            n = sum(len(result.scores) for result in labeler.score_rows(batch))
            with lock:
                labels[t] += n

    start = time.monotonic()
    workers = [threading.Thread(target=worker, args=(t,)) for t in range(threads)]
    for w in workers: w.start()
    for w in workers: w.join()
    wall = time.monotonic() - start
    usage = resource.getrusage(resource.RUSAGE_SELF)
    cpu = (usage.ru_utime - cpu0.ru_utime) + (usage.ru_stime - cpu0.ru_stime)
    print(json.dumps({"labels": sum(labels), "seconds": wall, "cpu_s": cpu, "peak_rss_kib": usage.ru_maxrss}))


def run_python(model, rows_path, threads, labeler_threads, seconds):
    before = load_average()
    out = subprocess.run([sys.executable, __file__, "--python-child", str(threads), "--labeler-threads",
                          str(labeler_threads), "--model", model, "--rows", rows_path, "--seconds", str(seconds)],
                         check=True, capture_output=True, text=True).stdout
    r = json.loads(out)
    return {"labels_per_s": r["labels"] / r["seconds"], "labels_per_cpu_s": r["labels"] / r["cpu_s"],
            "peak_rss_mib": r["peak_rss_kib"] / 1024, "load": f"{before} -> {load_average()}"}


# ---- (b) sift serve --workers N under sift loadgen ------------------------------------------------

def run_serve(sift, model, rows_path, workers, seconds):
    tmp = tempfile.mkdtemp(prefix="sift-workers-bench-")
    port_file = os.path.join(tmp, "port")
    proc = subprocess.Popen([sift, "serve", "--model", model, "--port", "0", "--port-file", port_file, "--threads", "2",
                             "--workers", str(workers), "--kv-cache-mb", "0"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        url = None
        for _ in range(600):
            try:
                url = f"http://127.0.0.1:{int(open(port_file).read())}"
                if urllib.request.urlopen(url + "/health", timeout=1).status == 200:
                    break
            except (OSError, ValueError):
                time.sleep(0.1)
        first = json.loads(open(rows_path).readline())
        request = urllib.request.Request(url + "/v1/label", json.dumps(first).encode(), {"Content-Type": "application/json"})
        urllib.request.urlopen(request, timeout=600).read()  # warm-up

        def cpu_seconds():
            fields = open(f"/proc/{proc.pid}/stat").read().rsplit(")", 1)[1].split()
            return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

        before, cpu0 = load_average(), cpu_seconds()
        out = json.loads(subprocess.run([sift, "loadgen", "--url", url, "--rows", rows_path, "--closed-loop",
                                         "--connections", "4", "--duration", str(seconds)],
                                        check=True, capture_output=True, text=True).stdout)
        cpu = cpu_seconds() - cpu0
        hwm = next(int(line.split()[1]) for line in open(f"/proc/{proc.pid}/status") if line.startswith("VmHWM:"))
        return {"labels_per_s": out["labels_per_s"], "labels_per_cpu_s": out["labels"] / cpu, "peak_rss_mib": hwm / 1024,
                "errors": sum(out["errors"].values()) if isinstance(out.get("errors"), dict) else out.get("errors"),
                "load": f"{before} -> {load_average()}"}
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=600)
        shutil.rmtree(tmp, ignore_errors=True)


def table(title, results, base, others):
    med = {name: {k: statistics.median(r[k] for r in runs) for k in ("labels_per_s", "labels_per_cpu_s", "peak_rss_mib")}
           for name, runs in results.items()}
    print(f"\n### {title}\n")
    print("| contender | labels/s | labels per CPU-s | CPU-s per s | peak RSS MiB | runs (labels/s; load 1/5/15 min before -> after) |")
    print("|---|---|---|---|---|---|")
    for name, runs in results.items():
        m = med[name]
        detail = "; ".join(f"{r['labels_per_s']:.0f} ({r['load']})" for r in runs)
        cores = m["labels_per_s"] / m["labels_per_cpu_s"]  # the cores it got: a shared machine caps it
        print(f"| {name} | {m['labels_per_s']:.0f} | {m['labels_per_cpu_s']:.0f} | {cores:.2f} | {m['peak_rss_mib']:.1f} | {detail} |")
    print()
    for other in others:
        print(f"{other} / {base}: labels/s {med[other]['labels_per_s'] / med[base]['labels_per_s']:.2f}x, "
              f"peak RSS {med[other]['peak_rss_mib'] / med[base]['peak_rss_mib']:.2f}x, "
              f"labels per CPU-s {med[other]['labels_per_cpu_s'] / med[base]['labels_per_cpu_s']:.2f}x")
    return med


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sift", default=str(REPOSITORY / "build" / "sift"))
    parser.add_argument("--model", default=str(REPOSITORY / "models" / "default-labeler"))
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=8)
    parser.add_argument("--only", choices=["python", "serve"])
    parser.add_argument("--json")
    parser.add_argument("--python-child", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--labeler-threads", type=int, default=0, help=argparse.SUPPRESS)
    parser.add_argument("--rows", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.python_child:
        return python_child(args.model, args.rows, args.python_child, args.labeler_threads, args.seconds)

    work = tempfile.mkdtemp(prefix="sift-workers-rows-")
    try:
        rows = make_rows(os.path.join(work, "rows.jsonl"), 400)
        print(f"machine: {os.cpu_count()} CPUs; load average at start {load_average()}")
        python = {"python 1x1": [], "python 1xall": [], "python 2x1": []}
        serve = {"serve w1": [], "serve w2": []}
        for _ in range(args.repeats):
            if args.only != "serve":
                python["python 1x1"].append(run_python(args.model, rows, 1, 1, args.seconds))
                python["python 1xall"].append(run_python(args.model, rows, 1, 0, args.seconds))
                python["python 2x1"].append(run_python(args.model, rows, 2, 0, args.seconds))
            if args.only != "python":
                serve["serve w1"].append(run_serve(args.sift, args.model, rows, 1, args.seconds))
                serve["serve w2"].append(run_serve(args.sift, args.model, rows, 2, args.seconds))
        out = {}
        if args.only != "serve":
            out["python"] = {"runs": python, "medians": table("Python: threads on one sift.Labeler", python,
                                                               "python 1x1", ["python 2x1", "python 1xall"])}
        if args.only != "python":
            out["serve"] = {"runs": serve, "medians": table("sift serve --workers", serve, "serve w1", ["serve w2"])}
        print(f"\nload average at the end {load_average()}")
        if args.json:
            pathlib.Path(args.json).write_text(json.dumps(out, indent=2))
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
