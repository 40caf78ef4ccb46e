#!/usr/bin/env python3
"""The paper's four research questions (§6) measured on sift's synthetic qualification world,
end to end; bench/paper/run.sh is the entry point and bench/paper/README.md says what each
step does. Every step writes its result to WORK/results/<step>.json and is skipped when that
file exists, so an interrupted run continues where it stopped (--fresh starts over).

    /usr/bin/python3 bench/paper/study.py [--quick] [--work DIR] [--report FILE]

Steps (sizes in labeled (profile, qualification) pairs; each row holds K = 20 pairs):
  world      sift synth (member-disjoint train / validation / test), a 3,000-token BPE
  train      for each size S: the first S/20 training rows, two labelers from the same fresh
             weights (same seed), the same shape and the same optimiser steps:
               scoring    sift train --pack                  (label-only, paper §3.2)
               generate   sift train --objective generate    (packed generation, §2.4)
             steps = max(min_steps, epochs * S / batch)
             scoring labelers get the best-F1 threshold on validation rows (sift calibrate, as
             the bundled labeler's recipe)
  quality    sift eval on the test split: agreement with the reference labels (and with the
             clean truth) on `eval_rows` rows, order inconsistency over 3 shuffles on
             `shuffle_rows` rows; scoring in mis mode at its calibrated threshold, generation
             by greedy decoding (hard decisions)
  offline    sift score on test rows, 2 threads, 3 interleaved repetitions: mis and
             independent with the largest scoring labeler, generate with the largest
             generation labeler; labels/s (wall, median)
  serving    sift serve + sift loadgen (bench/serve_bench.py): labels/s at p99 <= 1 s for
             N in {20, 50, 100, 200} (rows of a K = 200 world), mis / generate / independent,
             and N = 200 as two requests of 100 (query-KV cache on and off)
  sizes      RQ4: a larger labeler (bench/paper/config_large.json) trained at the middle size
             with the same steps; quality and offline labels/s beside the small one
"""
import argparse
import collections
import itertools
import json
import math
import os
import platform
import shutil
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(SRC, "bench"))
import serve_bench  # noqa: E402  (Server, measure, split_experiment)

# What each run measures. The full run is sized to fit well inside 2 hours on 2 cores.
CONFIGS = {
    "full": dict(members=8000, sizes=[2500, 6000, 15000, 40000, 100000], min_steps=450, epochs=3,
                 eval_rows=800, shuffle_rows=250, offline_rows=800, serve_rows=12, split_rows=150,
                 serve_ns=[20, 50, 100, 200], large_size_index=2),
    "quick": dict(members=2500, sizes=[1000, 2000, 4000, 8000, 16000], min_steps=150, epochs=2,
                  eval_rows=200, shuffle_rows=60, offline_rows=200, serve_rows=6, split_rows=60,
                  serve_ns=[20, 100, 200], large_size_index=2),
}
BATCH_PAIRS = 200  # labeled pairs per optimiser step, both objectives
LR = "3e-3"
THREADS = "2"
SEED = "1"
K = 20  # candidates per row of the study's world
# What the study's steps write into WORK (--fresh removes these and nothing else; the report
# and its plots are rewritten at the end of every run).
STUDY_OUTPUTS = ("results", "data", "serve-data", "subsets", "labelers", "serve", "tokenizer.json", "offline.out",
                 "study.json")


def log(msg):
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


def run(*args, stdout=None, **kw):
    """Runs a command; its stderr passes through only when it fails."""
    r = subprocess.run([str(a) for a in args], stdout=subprocess.PIPE if stdout is None else stdout,
                       stderr=subprocess.PIPE, text=True, env={**os.environ, "OMP_WAIT_POLICY": "passive"}, **kw)
    if r.returncode != 0:
        sys.stderr.write(r.stderr[-4000:])
        raise SystemExit(f"failed ({r.returncode}): {' '.join(map(str, args))}")
    return r.stdout


def count_items(rows_path):
    return sum(len(json.loads(line)["items"]) for line in open(rows_path))


def last_json(text):
    return json.loads([l for l in text.splitlines() if l.startswith("{")][-1])


class Study:
    def __init__(self, args):
        self.args = args
        self.cfg = CONFIGS["quick" if args.quick else "full"]
        self.work = os.path.abspath(args.work)
        self.sift = os.path.abspath(args.sift)
        self.results = os.path.join(self.work, "results")
        os.makedirs(self.results, exist_ok=True)

    def step(self, name, fn):
        """fn's result, cached in results/<name>.json."""
        path = os.path.join(self.results, name + ".json")
        if os.path.exists(path):
            return json.load(open(path))
        log(f"{name} ...")
        t = time.time()
        value = fn()
        value = {"seconds": time.time() - t, **value}
        with open(path + ".tmp", "w") as f:
            json.dump(value, f, indent=1)
        os.replace(path + ".tmp", path)
        log(f"{name}: done in {value['seconds']:.0f} s")
        return value

    def path(self, *parts):
        return os.path.join(self.work, *parts)

    # ---- world -------------------------------------------------------------------------
    def world(self):
        def build():
            run(self.sift, "synth", "--out", self.path("data"), "--members", self.cfg["members"], "--seed", 11)
            run(self.sift, "tokenizer", "train", "--vocab-size", 3000, "--input", self.path("data", "train.jsonl"),
                "--out", self.path("tokenizer.json"))
            # Serving rows: N up to 200 candidates per profile, from a world retrieved at K = 200.
            run(self.sift, "synth", "--out", self.path("serve-data"), "--members", 300, "--seed", 12,
                "--candidates", 200)
            train = open(self.path("data", "train.jsonl")).readlines()
            test = open(self.path("data", "test.jsonl")).readlines()
            return {"train_rows": len(train), "train_pairs": sum(len(json.loads(l)["items"]) for l in train),
                    "test_rows": len(test), "members": self.cfg["members"]}
        return self.step("world", build)

    def subset(self, name, source, n_rows):
        """The first n_rows lines of source (nested subsets: a larger size holds the smaller)."""
        path = self.path("subsets", f"{name}.jsonl")
        if not os.path.exists(path):
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(source) as f:
                lines = list(itertools.islice(f, n_rows))  # all of them when the file is shorter
            with open(path + ".tmp", "w") as f:
                f.writelines(lines)
            os.replace(path + ".tmp", path)
        return path

    # ---- training ----------------------------------------------------------------------
    def steps_for(self, pairs):
        return max(self.cfg["min_steps"], math.ceil(self.cfg["epochs"] * pairs / BATCH_PAIRS))

    def train(self, method, pairs, config=None, tag=""):
        config = config or os.path.join(SRC, "tools", "default_labeler", "config.json")
        name = f"train_{method}{tag}_{pairs}"
        out = self.path("labelers", f"{method}{tag}_{pairs}")

        def fit():
            rows = self.subset(f"train_{pairs}", self.path("data", "train.jsonl"), pairs // K)
            shutil.rmtree(out, ignore_errors=True)
            objective = ["--pack"] if method == "scoring" else ["--objective", "generate"]
            report = last_json(run(
                self.sift, "train", "--train", rows, "--out", out, "--config", config,
                "--tokenizer", self.path("tokenizer.json"), *objective, "--steps", self.steps_for(pairs),
                "--batch-size", BATCH_PAIRS, "--lr", LR, "--seed", SEED, "--threads", THREADS))
            shutil.rmtree(os.path.join(out, "checkpoint"), ignore_errors=True)
            threshold = None
            if method == "scoring":  # as the bundled labeler's recipe: the best-F1 threshold on validation
                validation = self.subset("validation", self.path("data", "validation.jsonl"), self.cfg["eval_rows"])
                run(self.sift, "calibrate", "--model", out, "--input", validation, "--target", "f1", "--in-place")
                threshold = json.load(open(os.path.join(out, "sift.json")))["threshold"]
            return {"method": method, "pairs": pairs, "steps": report["step"], "loss": report["loss"],
                    "pairs_per_second": report["pairs_per_second"], "threshold": threshold}
        result = self.step(name, fit)
        result["dir"] = out
        return result

    # ---- quality -----------------------------------------------------------------------
    def evaluate(self, method, labeler, name):
        mode = "mis" if method == "scoring" else "generate"
        test = self.path("data", "test.jsonl")

        def ev():
            agree = last_json(run(self.sift, "eval", "--model", labeler, "--mode", mode, "--shuffles", 0,
                                  "--input", self.subset("test_eval", test, self.cfg["eval_rows"])))
            order = last_json(run(self.sift, "eval", "--model", labeler, "--mode", mode, "--shuffles", 3,
                                  "--seed", 5, "--input", self.subset("test_shuffle", test, self.cfg["shuffle_rows"])))
            n = agree["n_items"]
            return {"agreement": agree["agreement"], "truth_agreement": agree.get("truth_agreement"),
                    "f1": agree["f1"], "n_items": n, "n_unparsed": agree.get("n_unparsed", 0),
                    "yes_rate": (agree["reference"]["true_positives"] + agree["reference"]["false_positives"]) / max(1, n),
                    "ci95": 1.96 * math.sqrt(agree["agreement"] * (1 - agree["agreement"]) / max(1, n)),
                    "inconsistency": order["order_inconsistency"], "order_compared": order["order"]["compared"],
                    "order_changed": order["order"]["changed"], "eval_labels_per_s": agree["labels_per_second"]}
        return self.step(name, ev)

    # ---- throughput --------------------------------------------------------------------
    def offline(self, scoring_dir, generate_dir):
        return self.step("offline", lambda: self.time_scoring({
            "mis": (scoring_dir, "mis"), "independent": (scoring_dir, "independent"),
            "generate": (generate_dir, "generate")}))

    def time_scoring(self, runs):
        """`sift score` over the offline test rows for each {key: (labeler, mode)}, 3 interleaved
        repetitions; labels/s from the median wall time (load included)."""
        rows = self.subset("test_offline", self.path("data", "test.jsonl"), self.cfg["offline_rows"])
        times = {k: [] for k in runs}
        for _ in range(3):
            for key, (labeler, mode) in runs.items():
                t = time.time()
                run(self.sift, "--threads", THREADS, "score", "--model", labeler, "--mode", mode,
                    "--input", rows, "--output", self.path("offline.out"))
                times[key].append(time.time() - t)
        labels = count_items(rows)
        return {k: {"seconds": v, "labels_per_s": labels / statistics.median(v)} for k, v in times.items()} | \
            {"labels": labels}

    def serving(self, scoring_dir, generate_dir):
        source = [l for f in ("train", "validation", "test")
                  for l in open(self.path("serve-data", f + ".jsonl")) if len(json.loads(l)["items"]) == 200]

        def rows_with(n, n_rows, name):
            path = self.path("serve", f"{name}.jsonl")
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w") as f:
                for line in source[:n_rows]:
                    row = json.loads(line)
                    f.write(json.dumps({"query": row["query"], "items": row["items"][:n]}) + "\n")
            return path

        serve_args = ["--threads", THREADS]

        def measure_modes():
            results = []
            for n in self.cfg["serve_ns"]:
                rows = rows_with(n, self.cfg["serve_rows"], f"n{n}")
                for mode, labeler in (("mis", scoring_dir), ("generate", generate_dir), ("independent", scoring_dir)):
                    r = serve_bench.measure(self.sift, labeler, rows, mode, 1000, self.args.quick, serve_args)
                    results.append(r)
            return {"results": results}

        def measure_split():
            rows = rows_with(200, self.cfg["split_rows"] + 1, "split")
            return {"split": serve_bench.split_experiment(self.sift, scoring_dir, rows, serve_args)}

        return self.step("serving", measure_modes) | self.step("serving_split", measure_split)

    # ---- the study ---------------------------------------------------------------------
    def run(self):
        t0 = time.time()
        world = self.world()
        sizes = [s for s in self.cfg["sizes"] if s <= world["train_pairs"]]
        quality = []
        labelers = {}
        for pairs in sizes:
            for method in ("scoring", "generate"):
                trained = self.train(method, pairs)
                labelers[(method, pairs)] = trained["dir"]
                q = self.evaluate(method, trained["dir"], f"quality_{method}_{pairs}")
                quality.append({**trained, **q})
        largest = sizes[-1]
        offline = self.offline(labelers[("scoring", largest)], labelers[("generate", largest)])
        serving = self.serving(labelers[("scoring", largest)], labelers[("generate", largest)])
        mid = sizes[self.cfg["large_size_index"]]
        large = self.train("scoring", mid, os.path.join(HERE, "config_large.json"), tag="_large")
        large_quality = self.evaluate("scoring", large["dir"], f"quality_scoring_large_{mid}")
        sizes_offline = self.step("sizes_offline", lambda: self.time_scoring(
            {"small": (labelers[("scoring", mid)], "mis"), "large": (large["dir"], "mis")}))
        return {"config": self.cfg, "quick": self.args.quick, "world": world, "quality": quality,
                "baselines": self.step("baselines", self.baselines),
                "offline": offline, "serving": serving,
                "sizes": {"pairs": mid, "small": next(q for q in quality if q["method"] == "scoring" and q["pairs"] == mid),
                          "large": {**large, **large_quality}, "offline": sizes_offline},
                "wall_seconds_this_invocation": time.time() - t0}

    def baselines(self):
        """Candidate-blind baselines on the evaluation rows: every label NO (the majority), and
        the best fixed answer per list position (YES at position k when most training rows'
        reference labels at k are YES): what a labeler that reads only the candidates' order
        (BM25 rank) could reach."""
        yes, total = collections.Counter(), collections.Counter()
        for line in open(self.path("data", "train.jsonl")):
            for k, label in enumerate(json.loads(line)["labels"]):
                yes[k] += bool(label)
                total[k] += 1
        says_yes = {k: 2 * yes[k] > total[k] for k in total}
        n = by_position = all_no = 0
        for line in open(self.subset("test_eval", self.path("data", "test.jsonl"), self.cfg["eval_rows"])):
            for k, label in enumerate(json.loads(line)["labels"]):
                n += 1
                by_position += says_yes.get(k, False) == bool(label)
                all_no += not label
        return {"all_no": all_no / n, "by_position": by_position / n,
                "yes_rate_by_position": [yes[k] / total[k] for k in sorted(total)]}



def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="smaller sizes (about 20 minutes on 2 cores)")
    ap.add_argument("--work", help="working directory (default build/paper-study, or build/paper-study-quick)")
    ap.add_argument("--sift", default=os.path.join(SRC, "build", "sift"))
    ap.add_argument("--report", help="the report (default bench/paper/REPORT.md; with --quick WORK/REPORT.md)")
    ap.add_argument("--fresh", action="store_true", help="discard what an earlier run wrote into WORK first")
    args = ap.parse_args()
    args.work = args.work or os.path.join(SRC, "build", "paper-study-quick" if args.quick else "paper-study")
    args.report = args.report or (os.path.join(args.work, "REPORT.md") if args.quick else os.path.join(HERE, "REPORT.md"))
    if args.fresh:  # only what the study writes there: a --work that holds other files keeps them
        for name in STUDY_OUTPUTS:
            path = os.path.join(args.work, name)
            shutil.rmtree(path) if os.path.isdir(path) else (os.path.exists(path) and os.remove(path))
    study = Study(args)
    results = study.run()
    # Wall time: the sum of the steps' own times, so a run resumed after an interruption (or
    # extended by a new step) does not count the pause.
    results["wall_seconds"] = sum(json.load(open(os.path.join(study.results, f))).get("seconds", 0)
                                  for f in os.listdir(study.results) if f.endswith(".json"))
    results["commit"] = subprocess.run(["git", "-C", SRC, "rev-parse", "--short", "HEAD"], capture_output=True,
                                       text=True).stdout.strip()
    results["dirty"] = bool(subprocess.run(["git", "-C", SRC, "status", "--porcelain", "--untracked-files=no"],
                                           capture_output=True, text=True).stdout.strip())
    results["date"] = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    results["machine"] = machine()
    json.dump(results, open(os.path.join(study.work, "study.json"), "w"), indent=1)
    import report  # bench/paper/report.py
    report.write(results, args.report)
    log(f"report: {args.report} ({results['wall_seconds'] / 60:.1f} min)")


def machine():
    model = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "?")
    mem = next((int(l.split()[1]) for l in open("/proc/meminfo") if l.startswith("MemTotal")), 0)
    return f"{os.cpu_count()} cores ({model}), {mem / 2**20:.0f} GiB RAM, {platform.system()} {platform.release()}"


if __name__ == "__main__":
    sys.path.insert(0, HERE)
    main()
