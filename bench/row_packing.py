#!/usr/bin/env python3
"""Rows packed into forward calls vs one row per call, side by side in one run.

    python3 bench/row_packing.py [--sift build/sift] [--old-sift PATH] [--reps 3] [--threads 2]

Workloads (each scored by `sift score` end to end, wall time including load, median of
--reps interleaved repetitions; labels/s = items / median seconds):
  bundled : models/default-labeler on examples/sample.jsonl (repeated 10x: 400 rows)
  short   : the small shape (hidden 512, 4 layers, random weights, the bundled tokenizer and
            sift.json), 300 rows of query ~64 tokens and 4 items of ~16
  paper   : the small shape, 3 rows of query ~744 tokens and 200 items of ~28
Ratios are of median wall time; CPU time (user + system, all threads) is printed beside it,
the steadier figure on a shared machine. Variants: `packed` = the default --max-batch-tokens; `one-row` = --max-batch-tokens equal to
the largest row's tokens (one row per call as long as no two rows fit; the script checks and
says so); `old` = --old-sift, a sift built from an earlier commit (one row per call, buffers
allocated per call), when given. Prefix mode is compared new vs old on the paper rows.
"""
import argparse
import json
import os
import random
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# The new engine's variants must give the same bits; an --old-sift from before f7fb761 sums a
# score over head_dim in another order (eight lanes and a tree), which moves F32 scores by a
# few 1e-6, so it is held to this.
OLD_TOLERANCE = 1e-5


def run(cmd, **kw):
    return subprocess.run(cmd, check=True, capture_output=True, text=True, **kw)


def tokens_per_word(sift, tokenizer, words):
    text = " ".join(words[:2000])
    out = run([sift, "tokenize", "--tokenizer", tokenizer, "--no-special"], input=json.dumps({"text": text}) + "\n")
    return len(json.loads(out.stdout)["ids"]) / min(2000, len(words))


def make_rows(words, n_rows, query_tokens, n_items, item_tokens, per_word, seed):
    rng = random.Random(seed)
    q_words, i_words = max(1, round(query_tokens / per_word)), max(1, round(item_tokens / per_word))
    rows = []
    for r in range(n_rows):
        query = " ".join(rng.choice(words) for _ in range(q_words))
        items = [" ".join(rng.choice(words) for _ in range(i_words)) for _ in range(n_items)]
        rows.append({"id": r, "query": query, "items": items})
    return rows


def write_rows(path, rows):
    with open(path, "w") as f:
        for row in rows:
            f.write(json.dumps(row) + "\n")


def score_seconds(sift, model, rows_path, extra, threads):
    """Wall seconds, CPU seconds (user + system of the child) and the output lines."""
    env = dict(os.environ, OMP_NUM_THREADS=str(threads), OMP_WAIT_POLICY="passive")
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    out = subprocess.run([sift, "--threads", str(threads), "score", "--model", model, "--input", rows_path] + extra,
                         check=True, capture_output=True, text=True, env=env)
    seconds = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return seconds, cpu, [json.loads(line) for line in out.stdout.splitlines()]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sift", default=os.path.join(ROOT, "build/sift"))
    ap.add_argument("--old-sift", default=None)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--threads", type=int, default=2)
    args = ap.parse_args()
    sift = args.sift
    work = tempfile.mkdtemp(prefix="sift-row-packing-")
    try:
        labeler = os.path.join(ROOT, "models/default-labeler")
        small = os.path.join(work, "small")
        run([sift, "make-checkpoint", "--out", small, "--arch", "qwen3", "--preset", "small", "--vocab", "3000",
             "--seed", "5"])
        for name in ("tokenizer.json", "sift.json"):
            shutil.copy(os.path.join(labeler, name), small)

        sample = [json.loads(l) for l in open(os.path.join(ROOT, "examples/sample.jsonl"))]
        words = [w for row in sample for w in row["query"].split()]
        per_word = tokens_per_word(sift, os.path.join(labeler, "tokenizer.json"), words)
        workloads = {
            "bundled": (labeler, [dict(r, id=f"{k}-{r.get('id')}") for k in range(10) for r in sample]),
            "short": (small, make_rows(words, 300, 64, 4, 16, per_word, 1)),
            "paper": (small, make_rows(words, 3, 744, 200, 28, per_word, 2)),
        }
        print(f"sift {sift}; old {args.old_sift or '-'}; {args.threads} threads; median of {args.reps}")
        print("| workload | mode | variant | rows | labels | tokens/row (min-max) | median wall s | median CPU s | "
              "labels/s (wall) | vs one-row | vs old |")
        print("|---|---|---|---|---|---|---|---|---|---|---|")
        for name, (model, rows) in workloads.items():
            path = os.path.join(work, f"{name}.jsonl")
            write_rows(path, rows)
            _, _, first = score_seconds(sift, model, path, [], args.threads)
            row_tokens = [line["usage"]["prefill_tokens"] for line in first]
            largest = max(row_tokens)
            two_smallest = sum(sorted(row_tokens)[:2])
            note = "" if two_smallest > largest else " (two rows can share a call)"
            n_labels = sum(len(line["scores"]) for line in first)
            modes = ["mis", "prefix"] if name == "paper" else ["mis"]
            for mode in modes:
                variants = {"packed": (sift, ["--mode", mode])}
                if mode == "mis":
                    variants["one-row"] = (sift, ["--mode", mode, "--max-batch-tokens", str(largest)])
                if args.old_sift:
                    variants["old"] = (args.old_sift, ["--mode", mode])
                times = {v: [] for v in variants}
                cpu_times = {v: [] for v in variants}
                reference = None
                for _ in range(args.reps):
                    for variant, (binary, extra) in variants.items():
                        seconds, cpu, lines = score_seconds(binary, model, path, extra, args.threads)
                        times[variant].append(seconds)
                        cpu_times[variant].append(cpu)
                        scores = [line["scores"] for line in lines]
                        if reference is None:
                            reference = scores
                        elif variant == "old":  # an older engine: the same math, another order of sums
                            gap = max(abs(a - b) for row, ref in zip(scores, reference) for a, b in zip(row, ref))
                            if len(scores) != len(reference) or gap > OLD_TOLERANCE:
                                sys.exit(f"{name} {mode} old: scores differ from the new engine's by {gap:.1e}")
                        elif scores != reference:
                            sys.exit(f"{name} {mode} {variant}: scores differ from the first run")
                med = {v: statistics.median(t) for v, t in times.items()}
                cpu_med = {v: statistics.median(t) for v, t in cpu_times.items()}
                for variant in variants:
                    rate = n_labels / med[variant]
                    vs_one = f"{med['one-row'] / med[variant]:.2f}x" if "one-row" in med else "-"
                    vs_old = f"{med['old'] / med[variant]:.2f}x" if "old" in med else "-"
                    print(f"| {name} | {mode} | {variant}{note if variant == 'one-row' else ''} | {len(rows)} | "
                          f"{n_labels} | {min(row_tokens)}-{largest} | {med[variant]:.2f} | {cpu_med[variant]:.2f} | "
                          f"{rate:.0f} | {vs_one} | {vs_old} |",
                          flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
