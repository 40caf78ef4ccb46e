#!/usr/bin/env python3
"""The paper's four research questions (§6) measured on sift's synthetic qualification world,
end to end; bench/paper/run.sh is the entry point and bench/paper/README.md says what each
step does. Every step writes its result to WORK/results/<step>.json and is skipped when that
file exists, so an interrupted run continues where it stopped (--fresh starts over; a training
run killed midway resumes from its checkpoint).

    /usr/bin/python3 bench/paper/study.py [--quick] [--seeds N] [--rq1-only] [--work DIR] [--report FILE]
                                          [--fresh] [--throughput] [--sift BINARY] [--sizes S,...]
                                          [--train-threads N] [--jobs N]

Steps (sizes in labeled (profile, qualification) pairs; each row holds K = 20 pairs); what each
run holds (sizes, reference sizes, seeds, step cap, ...) is study.json's "protocol":
  world      sift synth (member-disjoint train / validation / test) with its pretraining corpus
             (--pretraining-corpus: no pair of any split, no member of any split; its profiles'
             skills sections list what those members hold by the clean truth), a 3,000-token BPE
             trained on the corpus
  base       a base pretrained on the corpus (sift train --objective lm), cached by its inputs
             in WORK/bases/<hash>: the corpus, the tokenizer, the shape and the recipe
  train      for each size S and seed: the first S/20 training rows, two labelers fine-tuned from
             the base to their validation plateau (--early-stopping, --steps the cap):
               scoring    sift train --pack                  (label-only, paper §3.2)
               generate   sift train --objective generate    (packed generation, §2.4)
             scoring labelers get the agreement-maximising threshold on the validation rows
             (sift calibrate --target agreement)
  quality    sift eval on the test split: agreement with the reference labels (and with the
             clean truth) in BM25 order, then over 3 shuffles of each row's candidates: order
             inconsistency and the shuffled labels' agreement; at data_limited_sizes also the
             agreement on training rows the labeler saw
  baselines  what answers that never read the profile agree on the same test pairs (all NO, per
             BM25 rank, per qualification, per (rank, qualification)): the validity check
  ablation   a base pretrained on the corpus without its skills sections (sift synth
             --no-skills-sections), both objectives fine-tuned at ablation_sizes
  offline    sift score over test rows, 3 interleaved repetitions: mis and independent with a
             largest-size scoring labeler, generate with a largest-size generation labeler;
             labels/s after the model load, prompt and decoded tokens per label
  serving    sift serve + sift loadgen (bench/serve_bench.py): labels/s at p99 <= 1 s for
             N in {20, 50, 100, 200} (rows of a K = 200 world), mis / generate / independent,
             and N = 200 as two requests of 100 (query-KV cache on and off)
  ladder     RQ4: labelers of several sizes, each pretrained on the same corpus with the same
             recipe and fine-tuned (scoring, ladder_seeds) at ladder_pairs; quality and offline
             labels/s

--throughput re-measures only the throughput steps (offline, serving, ladder labels/s) with the
labelers already trained, and rewrites the report: for a quiet machine. --seeds N fine-tunes with
the protocol's first N seeds only (one seed: no intervals), --rq1-only stops after the baselines
(no ablation, offline, serving or ladder step; the report says they were not run): a smaller run for a
busy machine, which the report's header states; the cached steps it ran count for a later full run.
"""
import argparse
import collections
import concurrent.futures
import fcntl
import hashlib
import itertools
import json
import math
import os
import platform
import re
import resource
import shutil
import statistics
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(SRC, "bench"))
import serve_bench  # noqa: E402  (Server, measure, split_experiment)

BASE_CONFIG = os.path.join(SRC, "tools", "default_labeler", "config.json")
# RQ4's ladder: Qwen3 shapes around the bundled labeler's (hidden 128, 2 layers: "0.8M"), the
# same vocabulary (3,000 tokens, tied embeddings). Parameters are counted in the report.
LADDER = {
    "0.1M": dict(hidden_size=32, num_hidden_layers=1, num_attention_heads=2, num_key_value_heads=1, head_dim=16,
                 intermediate_size=96),
    "0.2M": dict(hidden_size=64, num_hidden_layers=1, num_attention_heads=2, num_key_value_heads=1, head_dim=32,
                 intermediate_size=192),
    "0.5M": dict(hidden_size=96, num_hidden_layers=2, num_attention_heads=3, num_key_value_heads=1, head_dim=32,
                 intermediate_size=288),
    "0.8M": {},  # the base of the other research questions
    "1.9M": dict(hidden_size=192, num_hidden_layers=3, num_attention_heads=6, num_key_value_heads=2, head_dim=32,
                 intermediate_size=576),
}
# The full run's ladder stops at the base's shape: the 1.9M rung alone (pretraining on 6M tokens,
# then fine-tuning) takes ~90 minutes of one core, on top of the full run's 6-7 hours, and pretrained on
# 2M tokens it agreed 85.5% where the 0.8M base's seeds agreed 86.1-90.5% (REPORT.md at commit
# 2794191): at this data a larger labeler does not do better. `ladder` can name it.
BASE_SHAPE = "0.8M"

# What each run measures: bench/paper/study.json's "protocol" ("full" and "quick"), written there
# before the run (the reference sizes of data efficiency included) and copied into the run's own
# study.json. Why the full run's numbers are what they are: fine-tuning is most of it (a scoring
# step costs about 0.2 s and a generation step 0.3 s, evaluations included, on 2 idle cores; the
# smaller sizes reach their plateau and stop long before the cap). The patience is 1,000 steps
# (20 evaluations) because a labeler sits on the candidate-blind answer for a while before it
# learns to read the candidates: with 300, the largest generation labeler stopped at 1,350 steps
# on that shelf (80.6% validation), where the scoring labeler had left it after ~1,300. The cap
# (12,000 steps) sits above every cell's best step plus the patience: at 120,000 pairs the best
# steps were 2,750-3,550, and one scoring seed at 240,000 pairs was still rising at 5,000. The
# sizes run to twice the largest reference (240,000 pairs; the world has 16,000 members so its
# training split holds them). The corpus is 6M tokens because a base that has read more reads
# better: pretrained on 2M tokens (validation loss 1.29) the largest generation labelers reached
# 79.5-80.9% agreement, on 6M (loss 0.96) 85.0-85.6% (bench/results/2026-12-04-xeon-2vcpu.md);
# the base costs ~2,000 CPU seconds instead of ~340, once.
PROTOCOL_FILE = os.path.join(HERE, "study.json")


def load_protocol(path=PROTOCOL_FILE):
    """{"full": {...}, "quick": {...}}: the configurations the study runs, from study.json."""
    with open(path) as f:
        protocol = json.load(f).get("protocol")
    if not protocol or not {"full", "quick"} <= set(protocol):
        raise SystemExit(f"{path}: no \"protocol\" with \"full\" and \"quick\" configurations")
    for name, cfg in protocol.items():
        for key in ("reference_sizes", "data_limited_sizes", "ablation_sizes"):
            missing = [p for p in cfg.get(key, []) if p not in cfg["sizes"]]
            if missing:
                raise SystemExit(f"{path}: protocol {name}: {key} {missing} are not among its sizes {cfg['sizes']}")
        if cfg["ladder_pairs"] not in cfg["sizes"]:
            raise SystemExit(f"{path}: protocol {name}: ladder_pairs {cfg['ladder_pairs']} is not among its sizes")
    return protocol


PRETRAIN = dict(sequence_tokens=512, lr="3e-3")                  # the recipe of every base
FINETUNE = dict(batch_pairs=200, lr="1e-3", min_delta="0.001")   # both objectives, every size
THREADS = "2"
K = 20  # candidates per row of the study's world
# What the study's steps write into WORK (--fresh removes these and nothing else; the cached
# bases survive, they are keyed by their inputs).
STUDY_OUTPUTS = ("results", "data", "data-noskills", "serve-data", "subsets", "labelers", "serve", "tokenizer.json",
                 "offline.out", "study.json", "corpus.jsonl", "corpus_train.jsonl", "corpus_validation.jsonl",
                 "corpus_noskills.jsonl", "corpus_noskills_train.jsonl", "corpus_noskills_validation.jsonl", "configs")
THROUGHPUT_STEPS = ("offline", "serving", "serving_split", "ladder_offline")


def log(msg):
    sys.stderr.write(f"[{time.strftime('%H:%M:%S')}] {msg}\n")  # one write: cells side by side log too
    sys.stderr.flush()


class CpuSeconds:
    """The CPU time of the commands run() starts, counted per thread and in all, so a step's CPU
    time stays its own when fine-tuning cells run side by side (RUSAGE_CHILDREN counts every
    child of the process, whichever thread waited for it)."""
    lock = threading.Lock()
    total = 0.0
    mine = threading.local()

    @classmethod
    def add(cls, seconds):
        with cls.lock:
            cls.total += seconds
        cls.mine.seconds = cls.of_this_thread() + seconds

    @classmethod
    def of_this_thread(cls):
        return getattr(cls.mine, "seconds", 0.0)

    @classmethod
    def snapshot(cls):
        """(this thread's run() CPU, every thread's run() CPU, every child's CPU)."""
        usage = resource.getrusage(resource.RUSAGE_CHILDREN)
        with cls.lock:
            return cls.of_this_thread(), cls.total, usage.ru_utime + usage.ru_stime

    @classmethod
    def since(cls, before):
        """A step's CPU seconds since snapshot() `before`: the commands this thread ran, plus
        children that run() did not start (bench/serve_bench.py's servers, which no other step
        runs beside)."""
        mine, total, children = cls.snapshot()
        return (mine - before[0]) + max(0.0, (children - before[2]) - (total - before[1]))


def run(*args, stdout=None, stderr_too=False, **kw):
    """Runs a command and returns its stdout (with stderr_too, (stdout, stderr)); its stderr
    passes through only when it fails."""
    with subprocess.Popen([str(a) for a in args], stdout=subprocess.PIPE if stdout is None else stdout,
                          stderr=subprocess.PIPE, text=True, env={**os.environ, "OMP_WAIT_POLICY": "passive"},
                          **kw) as p:
        stderr = []
        reader = threading.Thread(target=lambda: stderr.append(p.stderr.read()))
        reader.start()
        out = p.stdout.read() if stdout is None else None
        reader.join()
        _, status, usage = os.wait4(p.pid, 0)  # the child's own CPU time (Popen.wait would drop it)
        p.returncode = os.waitstatus_to_exitcode(status)
        CpuSeconds.add(usage.ru_utime + usage.ru_stime)
    if p.returncode != 0:
        sys.stderr.write(stderr[0][-4000:])
        raise SystemExit(f"failed ({p.returncode}): {' '.join(map(str, args))}")
    return (out, stderr[0]) if stderr_too else out


def count_items(rows_path):
    return sum(len(json.loads(line)["items"]) for line in open(rows_path))


def count_lines(path):
    return sum(1 for line in open(path) if line.strip())


def scored_labels_per_second(stderr):
    """The labels/s `sift score` reports on its last line: the scoring alone, after the model
    load ("sift score: 800 rows (0 errors), 16000 labels in 1.7 s, 9410 labels/s")."""
    found = re.findall(r"labels? in [0-9.]+ s, ([0-9.]+) labels/s", stderr)
    if not found:
        raise SystemExit(f"sift score printed no labels/s line: {stderr[-500:]}")
    return float(found[-1])


def usage_per_label(output_path):
    """Prompt tokens run (prefill less those reused from a cache) and decoded tokens, per label,
    from sift score's output rows' usage."""
    labels = prefill = cached = decoded = 0
    for line in open(output_path):
        row = json.loads(line)
        usage = row.get("usage") or {}
        labels += len(row.get("scores") or row.get("labels") or [])
        prefill += usage.get("prefill_tokens", 0)
        cached += usage.get("cached_tokens", 0)
        decoded += usage.get("generated_tokens", 0)
    labels = max(1, labels)
    return {"prefill_tokens_per_label": (prefill - cached) / labels, "decoded_tokens_per_label": decoded / labels}


def last_json(text):
    return json.loads([l for l in text.splitlines() if l.startswith("{")][-1])


def file_hash(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def side_by_side(fn, calls, at_once):
    """[fn(*c) for c in calls], `at_once` of them running at a time, in this order: results in
    the order of `calls`. A failure stops what has not started and is raised once the running
    ones end."""
    if at_once <= 1:
        return [fn(*c) for c in calls]
    with concurrent.futures.ThreadPoolExecutor(max_workers=at_once) as pool:
        futures = [pool.submit(fn, *c) for c in calls]
        try:
            return [f.result() for f in futures]
        except BaseException:
            pool.shutdown(cancel_futures=True)
            raise


def union_seconds(intervals):
    """The length of the union of (start, end) intervals: the wall time of steps that ran
    partly side by side, without the pauses between invocations."""
    total, reach = 0.0, None
    for start, end in sorted(intervals):
        if reach is None or start > reach:
            total, reach = total + end - start, end
        elif end > reach:
            total, reach = total + end - reach, end
    return total


class Study:
    def __init__(self, args):
        self.args = args
        self.protocol = load_protocol()
        self.cfg = dict(self.protocol["quick" if args.quick else "full"])
        if args.seeds:
            self.cfg["seeds"] = self.cfg["seeds"][:args.seeds]
            for key in ("ablation_seeds", "ladder_seeds"):  # the seeds this run trains, nothing more
                self.cfg[key] = [s for s in self.cfg[key] if s in self.cfg["seeds"]] or self.cfg["seeds"][:1]
        self.work = os.path.abspath(args.work)
        self.sift = os.path.abspath(args.sift)
        self.results = os.path.join(self.work, "results")
        self.ran = set()  # the steps of this invocation, cached or run
        os.makedirs(self.results, exist_ok=True)

    def step(self, name, fn):
        """fn's result, cached in results/<name>.json, with its wall and CPU seconds and the
        1-minute load average at its start and end (load = other work on the machine too)."""
        path = os.path.join(self.results, name + ".json")
        self.ran.add(name)
        # One invocation at a time runs a step: another that reaches it waits here, then reads
        # its result (two invocations with disjoint --sizes share the world and the base).
        with open(path + ".lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            if os.path.exists(path):
                return json.load(open(path))
            log(f"{name} ...")
            t, cpu, load = time.time(), CpuSeconds.snapshot(), os.getloadavg()[0]
            value = fn()
            value = {"seconds": time.time() - t, "cpu_seconds": CpuSeconds.since(cpu), "started": t,
                     "ended": time.time(), "load": [load, os.getloadavg()[0]], **value}
            with open(path + ".tmp", "w") as f:
                json.dump(value, f, indent=1)
            os.replace(path + ".tmp", path)
            log(f"{name}: done in {value['seconds']:.0f} s ({value['cpu_seconds']:.0f} CPU s, load {load:.1f})")
            return value

    def path(self, *parts):
        return os.path.join(self.work, *parts)

    # ---- world -------------------------------------------------------------------------
    def world(self):
        def build():
            run(self.sift, "synth", "--out", self.path("data"), "--members", self.cfg["members"], "--seed", 11,
                "--pretraining-corpus", self.path("corpus.jsonl"), "--tokens", self.cfg["corpus_tokens"])
            self.split_corpus("corpus")
            # The base's tokenizer is trained on the text it is pretrained on, not on any split.
            run(self.sift, "tokenizer", "train", "--vocab-size", 3000, "--input", self.path("corpus_train.jsonl"),
                "--out", self.path("tokenizer.json"))
            # Serving rows: N up to 200 candidates per profile, from a world retrieved at K = 200.
            run(self.sift, "synth", "--out", self.path("serve-data"), "--members", 300, "--seed", 12,
                "--candidates", 200)
            train = open(self.path("data", "train.jsonl")).readlines()
            test = open(self.path("data", "test.jsonl")).readlines()
            summary = json.load(open(self.path("data", "summary.json")))
            return {"train_rows": len(train), "train_pairs": sum(len(json.loads(l)["items"]) for l in train),
                    "test_rows": len(test), "members": self.cfg["members"], "corpus": summary["pretraining_corpus"]}
        return self.step("world", build)

    def split_corpus(self, name):
        """NAME.jsonl as NAME_train.jsonl and NAME_validation.jsonl: the corpus's last documents
        are the pretraining's validation text (its loss only)."""
        corpus = open(self.path(name + ".jsonl")).readlines()
        held = self.cfg["corpus_validation_documents"]
        with open(self.path(name + "_train.jsonl"), "w") as f:
            f.writelines(corpus[:-held])
        with open(self.path(name + "_validation.jsonl"), "w") as f:
            f.writelines(corpus[-held:])

    def corpus_without_skills(self):
        """The ablation's corpus: the same command with --no-skills-sections, so its profiles end
        without the skills section (a list of what the member holds by the clean truth); the same
        number of tokens, filled with more documents. The world it writes beside is the same as
        the study's (same seed) and is not used."""
        def build():
            run(self.sift, "synth", "--out", self.path("data-noskills"), "--members", self.cfg["members"], "--seed", 11,
                "--pretraining-corpus", self.path("corpus_noskills.jsonl"), "--tokens", self.cfg["corpus_tokens"],
                "--no-skills-sections")
            self.split_corpus("corpus_noskills")
            return {"corpus": json.load(open(self.path("data-noskills", "summary.json")))["pretraining_corpus"]}
        return self.step("world_noskills", build)

    def subset(self, name, source, n_rows):
        """The first n_rows lines of source (nested subsets: a larger size holds the smaller)."""
        path = self.path("subsets", f"{name}.jsonl")
        if not os.path.exists(path):
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(source) as f:
                lines = list(itertools.islice(f, n_rows))  # all of them when the file is shorter
            # Two cells side by side may both make it: each writes a file of its own, then renames.
            tmp = f"{path}.{os.getpid()}.{threading.get_ident()}.tmp"
            with open(tmp, "w") as f:
                f.writelines(lines)
            os.replace(tmp, path)
        return path

    def validation_rows(self):
        return self.subset("validation", self.path("data", "validation.jsonl"), self.cfg["validation_rows"])

    # ---- pretraining -------------------------------------------------------------------
    def shape_config(self, shape):
        """config.json of a ladder shape: the base's with the shape's overrides."""
        path = self.path("configs", f"{shape}.json")
        if not os.path.exists(path):
            os.makedirs(os.path.dirname(path), exist_ok=True)
            config = {**json.load(open(BASE_CONFIG)), **LADDER[shape]}
            with open(path, "w") as f:
                json.dump(config, f, indent=1)
        return path

    def pretrain(self, shape, corpus="corpus"):
        """The base of `shape`, pretrained once per set of inputs: WORK/bases/<shape>-<hash> of the
        corpus, the tokenizer, the config and the recipe; resumed from its checkpoint when a
        run was killed. `corpus`: "corpus", or the ablation's "corpus_noskills" (the same
        tokenizer, trained on the study's corpus). Returns the step's record with "dir"."""
        config = self.shape_config(shape)
        tag = "" if corpus == "corpus" else "_" + corpus.split("_", 1)[1]
        args = ["--max-sequence-tokens", PRETRAIN["sequence_tokens"], "--batch-size", self.cfg["pretrain_batch_tokens"],
                "--lr", PRETRAIN["lr"], "--epochs", self.cfg["pretrain_epochs"], "--seed", 1]
        key = hashlib.sha256(json.dumps([file_hash(self.path(corpus + "_train.jsonl")),
                                         file_hash(self.path("tokenizer.json")), json.load(open(config)),
                                         [str(a) for a in args]]).encode()).hexdigest()[:16]
        out = os.path.join(self.work, "bases", f"{shape}{tag}-{key}")
        record = os.path.join(out, "pretraining.json")

        def fit():
            if os.path.exists(record):  # pretrained by an earlier run with the same inputs
                return {**json.load(open(record)), "cached": True}
            resume = ["--resume"] if os.path.exists(os.path.join(out, "checkpoint", "trainer.json")) else []
            report = last_json(run(
                self.sift, "train", "--objective", "lm", "--train", self.path(corpus + "_train.jsonl"),
                "--validation", self.path(corpus + "_validation.jsonl"), "--out", out, "--config", config,
                "--tokenizer", self.path("tokenizer.json"), *args, "--threads", self.args.train_threads, "--save-every", 50,
                *resume))
            shutil.rmtree(os.path.join(out, "checkpoint"), ignore_errors=True)
            value = {"shape": shape, "corpus": corpus, "steps": report["step"], "loss": report["loss"],
                     "validation_loss": report["validation_loss"], "train_tokens": report["train_tokens"],
                     "tokens_per_second": report["pairs_per_second"], "parameters": parameter_count(config),
                     **{k: json.load(open(config))[k] for k in ("hidden_size", "num_hidden_layers")}}
            with open(record, "w") as f:
                json.dump(value, f, indent=1)
            return {**value, "cached": False}
        return {**self.step(f"pretrain_{shape}{tag}", fit), "dir": out}

    # ---- fine-tuning -------------------------------------------------------------------
    def finetune(self, method, pairs, seed, base, tag=""):
        name = f"train_{method}{tag}_{pairs}_seed{seed}"
        out = self.path("labelers", f"{method}{tag}_{pairs}_seed{seed}")

        def fit():
            rows = self.subset(f"train_{pairs}", self.path("data", "train.jsonl"), pairs // K)
            resume = ["--resume"] if os.path.exists(os.path.join(out, "checkpoint", "trainer.json")) else []
            if not resume:
                shutil.rmtree(out, ignore_errors=True)
            objective = ["--pack"] if method == "scoring" else ["--objective", "generate"]
            report = last_json(run(
                self.sift, "train", "--init-model", base, "--train", rows, "--validation", self.validation_rows(),
                "--out", out, *objective, "--steps", self.cfg["max_steps"], "--batch-size", FINETUNE["batch_pairs"],
                "--lr", FINETUNE["lr"], "--seed", seed, "--threads", self.args.train_threads, "--early-stopping", self.cfg["patience"],
                "--eval-every", self.cfg["eval_every"], "--min-delta", FINETUNE["min_delta"], "--save-every", 100,
                *resume))
            shutil.rmtree(os.path.join(out, "checkpoint"), ignore_errors=True)
            threshold = None
            if method == "scoring":  # the agreement-maximising threshold on the validation rows
                # --force: a labeler that has not learned to separate YES from NO is still calibrated
                # and measured; the report's validity check says it did not learn.
                run(self.sift, "calibrate", "--model", out, "--input", self.validation_rows(), "--target", "agreement",
                    "--in-place", "--force")
                threshold = json.load(open(os.path.join(out, "sift.json")))["threshold"]
            stopping = report["early_stopping"]
            return {"method": method, "pairs": pairs, "seed": seed, "threads": self.args.train_threads,
                    "steps": report["step"],
                    "best_step": stopping["best_step"], "stopped_early": report["stopped_early"],
                    "validation_best": stopping["best"], "evaluations": stopping["evaluations"],
                    "loss": report["loss"], "pairs_per_second": report["pairs_per_second"], "threshold": threshold}
        return {**self.step(name, fit), "dir": out}

    # ---- quality -----------------------------------------------------------------------
    def evaluate(self, method, labeler, name):
        """sift eval on the test rows: agreement (and truth agreement) in the candidates' BM25
        order, then over the protocol's shuffles of each row's candidates (seed 5): order
        inconsistency and the shuffled labels' agreement, which generation cannot get from the
        order."""
        mode = "mis" if method == "scoring" else "generate"

        def ev():
            out = last_json(run(self.sift, "eval", "--model", labeler, "--mode", mode, "--shuffles", self.cfg["shuffles"],
                                "--seed", 5, "--input", self.subset("test_eval", self.path("data", "test.jsonl"),
                                                                    self.cfg["eval_rows"])))
            n = out["n_items"]
            return {"agreement": out["agreement"], "truth_agreement": out.get("truth_agreement"),
                    "shuffled_agreement": out.get("shuffled_agreement"),
                    "shuffled_truth_agreement": out.get("shuffled_truth_agreement"),
                    "f1": out["f1"], "n_items": n, "n_unparsed": out.get("n_unparsed", 0),
                    "yes_rate": (out["reference"]["true_positives"] + out["reference"]["false_positives"]) / max(1, n),
                    "inconsistency": out["order_inconsistency"], "order_compared": out["order"]["compared"],
                    "order_changed": out["order"]["changed"]}
        return self.step(name, ev)

    def train_fit(self, method, labeler, name):
        """Agreement on training rows the labeler was fine-tuned on (the first train_eval_rows rows,
        inside every size of data_limited_sizes), beside its test agreement: how far it fits
        the pairs it saw beyond the pairs it did not."""
        mode = "mis" if method == "scoring" else "generate"
        rows = self.subset("train_eval", self.path("data", "train.jsonl"), self.cfg["train_eval_rows"])
        return self.step(name, lambda: {"train_agreement": last_json(run(
            self.sift, "eval", "--model", labeler, "--mode", mode, "--shuffles", 0, "--input", rows))["agreement"]})

    # ---- throughput --------------------------------------------------------------------
    def offline(self, scoring_dir, generate_dir):
        return self.step("offline", lambda: self.time_scoring({
            "mis": (scoring_dir, "mis"), "independent": (scoring_dir, "independent"),
            "generate": (generate_dir, "generate")}))

    def time_scoring(self, runs):
        """`sift score` over the offline test rows for each {key: (labeler, mode)}, 3 interleaved
        repetitions: labels/s of the scoring itself (what sift score reports after the model
        load), its median over the repetitions, and the wall time with the load beside it; the
        prompt (prefill) and decoded tokens per label from the output's usage."""
        rows = self.subset("test_offline", self.path("data", "test.jsonl"), self.cfg["offline_rows"])
        times = {k: [] for k in runs}
        rates = {k: [] for k in runs}
        tokens = {}
        for _ in range(3):
            for key, (labeler, mode) in runs.items():
                t = time.time()
                _, err = run(self.sift, "--threads", THREADS, "score", "--model", labeler, "--mode", mode,
                             "--input", rows, "--output", self.path("offline.out"), stderr_too=True)
                times[key].append(time.time() - t)
                rates[key].append(scored_labels_per_second(err))
                tokens[key] = usage_per_label(self.path("offline.out"))
        labels = count_items(rows)
        return {k: {"seconds": v, "labels_per_s": statistics.median(rates[k]), "rates": rates[k],
                    "labels_per_s_with_load": labels / statistics.median(v), **tokens[k]}
                for k, v in times.items()} | {"labels": labels, "rows": count_lines(rows)}

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
                    results.append(serve_bench.measure(self.sift, labeler, rows, mode, 1000, self.args.quick, serve_args))
            return {"results": results}

        def measure_split():
            rows = rows_with(200, self.cfg["split_rows"] + 1, "split")
            return {"split": serve_bench.split_experiment(self.sift, scoring_dir, rows, serve_args)}

        return self.step("serving", measure_modes) | self.step("serving_split", measure_split)

    # ---- the study ---------------------------------------------------------------------
    def run(self):
        t0 = time.time()
        world = self.world()
        base = self.pretrain(BASE_SHAPE)
        sizes = self.cfg["sizes"]
        too_large = [p for p in sizes if p > world["train_pairs"]]
        if too_large:
            raise SystemExit(f"sizes {too_large} are larger than the world's {world['train_pairs']:,} training pairs: "
                             "raise the protocol's members")
        if self.args.sizes:  # this invocation's share of the cells; the report wants them all
            missing = [s for s in self.args.sizes if s not in sizes]
            if missing:
                raise SystemExit(f"--sizes {missing}: not among this configuration's sizes {sizes}")
            sizes = [s for s in sizes if s in self.args.sizes]
        # The largest size first: the validity check reads every size, and the largest's labelers
        # are the throughput steps'; a run whose labelers do not learn says so early. The cells
        # run --jobs at a time (a small labeler trains little faster on two threads than on one).
        def cell(method, pairs, seed):
            trained = self.finetune(method, pairs, seed, base["dir"])
            row = {**trained, **self.evaluate(method, trained["dir"], f"quality_{method}_{pairs}_seed{seed}")}
            if pairs in self.cfg["data_limited_sizes"]:  # train-split agreement beside the test's
                row.update(self.train_fit(method, trained["dir"], f"trainfit_{method}_{pairs}_seed{seed}"))
            return row
        cells = [(method, pairs, seed) for pairs in reversed(sizes) for seed in self.cfg["seeds"]
                 for method in ("generate", "scoring")]
        quality = side_by_side(cell, cells, self.args.jobs)
        labelers = {c: q["dir"] for c, q in zip(cells, quality)}
        if self.args.sizes:
            return None
        largest, first_seed = sizes[-1], self.cfg["seeds"][0]
        baselines = self.step("baselines", self.baselines)
        protocol = {"protocol": self.protocol, "config": self.cfg, "pretrain_recipe": PRETRAIN,
                    "finetune_recipe": FINETUNE, "quick": self.args.quick, "rq1_only": self.args.rq1_only,
                    "world": world, "base": base, "quality": quality, "baselines": baselines}
        if self.args.rq1_only:
            return {**protocol, "wall_seconds_this_invocation": time.time() - t0}
        protocol["ablation"] = self.ablation()
        scoring_dir, generate_dir = labelers[("scoring", largest, first_seed)], labelers[("generate", largest, first_seed)]
        offline = self.offline(scoring_dir, generate_dir)
        serving = self.serving(scoring_dir, generate_dir)
        ladder_pairs = self.cfg["ladder_pairs"]

        def rung(shape, seed):
            shape_base = base if shape == BASE_SHAPE else self.pretrain(shape)
            tag = "" if shape == BASE_SHAPE else f"_{shape}"  # the base's rung is RQ1's cell
            trained = self.finetune("scoring", ladder_pairs, seed, shape_base["dir"], tag=tag)
            q = self.evaluate("scoring", trained["dir"], f"quality_scoring{tag}_{ladder_pairs}_seed{seed}")
            return {"shape": shape, "pretraining": shape_base, **trained, **q}
        # Each shape's base first (one pretraining per shape), then its seeds.
        ladder = side_by_side(rung, [(shape, seed) for shape in self.cfg["ladder"] for seed in self.cfg["ladder_seeds"]],
                              self.args.jobs)
        ladder_offline = self.step("ladder_offline", lambda: self.time_scoring(
            {row["shape"]: (row["dir"], "mis") for row in ladder if row["seed"] == self.cfg["ladder_seeds"][0]}))
        return {**protocol, "offline": offline, "serving": serving, "ladder": ladder, "ladder_offline": ladder_offline,
                "wall_seconds_this_invocation": time.time() - t0}

    def ablation(self):
        """The corpus without its skills sections: a base pretrained on it (same shape, recipe and
        tokenizer), both objectives fine-tuned at the ablation sizes and seeds as in RQ1."""
        self.corpus_without_skills()
        base = self.pretrain(BASE_SHAPE, corpus="corpus_noskills")

        def cell(method, pairs, seed):
            trained = self.finetune(method, pairs, seed, base["dir"], tag="_noskills")
            return {**trained, **self.evaluate(method, trained["dir"], f"quality_{method}_noskills_{pairs}_seed{seed}")}
        cells = [(method, pairs, seed) for pairs in reversed(self.cfg["ablation_sizes"])
                 for seed in self.cfg["ablation_seeds"] for method in ("generate", "scoring")]
        return {"base": base, "cells": side_by_side(cell, cells, self.args.jobs)}

    def baselines(self):
        """What answers that never read the profile agree on the evaluation rows, each learned
        from the training split's reference labels: every label NO (the majority); the best fixed
        answer per list position (YES at BM25 rank k when most training rows are YES at k); each
        qualification's majority label; and the majority label per (rank, qualification). Rank
        is what generation sees (its candidates come in BM25 order) and scoring does not (MIS
        scores each candidate alone), so each objective is checked against the answers it could
        give: scoring all NO and per qualification, generation all four. A qualification (or a
        (rank, qualification)) never seen in training falls back to the next coarser table:
        (rank, qualification) -> qualification -> rank."""
        yes, total = collections.Counter(), collections.Counter()
        by_item_yes, by_item_total = collections.Counter(), collections.Counter()
        by_pair_yes, by_pair_total = collections.Counter(), collections.Counter()
        for line in open(self.path("data", "train.jsonl")):
            row = json.loads(line)
            for k, (item, label) in enumerate(zip(row["items"], row["labels"])):
                yes[k] += bool(label)
                total[k] += 1
                by_item_yes[item["id"]] += bool(label)
                by_item_total[item["id"]] += 1
                by_pair_yes[(k, item["id"])] += bool(label)
                by_pair_total[(k, item["id"])] += 1
        says_yes = {k: 2 * yes[k] > total[k] for k in total}

        def item_says(k, item):
            seen = by_item_total[item]
            return 2 * by_item_yes[item] > seen if seen else says_yes.get(k, False)

        def pair_says(k, item):
            seen = by_pair_total[(k, item)]
            return 2 * by_pair_yes[(k, item)] > seen if seen else item_says(k, item)

        n = by_position = all_no = by_item = by_pair = 0
        for line in open(self.subset("test_eval", self.path("data", "test.jsonl"), self.cfg["eval_rows"])):
            row = json.loads(line)
            for k, (item, label) in enumerate(zip(row["items"], row["labels"])):
                n += 1
                by_position += says_yes.get(k, False) == bool(label)
                all_no += not label
                by_item += item_says(k, item["id"]) == bool(label)
                by_pair += pair_says(k, item["id"]) == bool(label)
        return {"all_no": all_no / n, "by_position": by_position / n, "by_qualification": by_item / n,
                "by_rank_qualification": by_pair / n,
                "yes_rate_by_position": [yes[k] / total[k] for k in sorted(total)]}


def parameter_count(config_path):
    """Parameters of a Qwen3 config with tied embeddings (embedding, per layer: q/k/v/o, q/k
    norms, the MLP and two norms; the final norm)."""
    c = json.load(open(config_path))
    h, hd, nh, nkv, inter = (c["hidden_size"], c["head_dim"], c["num_attention_heads"], c["num_key_value_heads"],
                             c["intermediate_size"])
    layer = h * nh * hd + 2 * h * nkv * hd + nh * hd * h + 2 * hd + 3 * h * inter + 2 * h
    return c["vocab_size"] * h * (1 if c.get("tie_word_embeddings", True) else 2) + c["num_hidden_layers"] * layer + h


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="smaller sizes (at most 25 minutes on 2 idle cores)")
    ap.add_argument("--seeds", type=int, choices=(1, 2, 3), help="fine-tune with the first N of the 3 seeds only")
    ap.add_argument("--rq1-only", action="store_true",
                    help="stop after RQ1 (world, base, fine-tuning, quality, baselines): no throughput or ladder step")
    ap.add_argument("--work", help="working directory (default build/paper-study, or build/paper-study-quick)")
    ap.add_argument("--sift", default=os.path.join(SRC, "build", "sift"),
                    help="the sift binary (sift-train beside it); default build/sift")
    ap.add_argument("--report", help="the report (default bench/paper/REPORT.md; with --quick WORK/REPORT.md)")
    ap.add_argument("--fresh", action="store_true", help="discard what an earlier run wrote into WORK first (not the bases)")
    ap.add_argument("--throughput", action="store_true",
                    help="re-measure the throughput steps (offline, serving, ladder labels/s) with the trained labelers")
    ap.add_argument("--sizes", type=lambda v: [int(x) for x in v.split(",")],
                    help="fine-tune only these of the configuration's sizes (comma-separated) and write no report; "
                         "a run without --sizes then finds every cell cached and writes it")
    ap.add_argument("--train-threads", type=int, default=1, help="each training run's --threads (default 1)")
    ap.add_argument("--jobs", type=int, help="training cells run side by side (default: the cores / --train-threads)")
    args = ap.parse_args()
    args.jobs = args.jobs or max(1, (os.cpu_count() or 1) // args.train_threads)
    args.work = args.work or os.path.join(SRC, "build", "paper-study-quick" if args.quick else "paper-study")
    args.report = args.report or (os.path.join(args.work, "REPORT.md") if args.quick else os.path.join(HERE, "REPORT.md"))
    if args.fresh:  # only what the study writes there: a --work that holds other files keeps them
        for name in STUDY_OUTPUTS:
            path = os.path.join(args.work, name)
            shutil.rmtree(path) if os.path.isdir(path) else (os.path.exists(path) and os.remove(path))
    if args.throughput:
        for name in THROUGHPUT_STEPS:
            path = os.path.join(args.work, "results", name + ".json")
            if os.path.exists(path):
                os.remove(path)
    study = Study(args)
    results = study.run()
    if results is None:
        log(f"the cells of sizes {args.sizes} are done; a run without --sizes writes the report")
        return
    # Wall time: the time covered by the steps' own spans, so a run resumed after an interruption
    # (or extended by a new step) does not count the pause, and cells side by side count once;
    # CPU seconds: the sum of the steps' own.
    # The steps of this invocation's protocol (a run with fewer seeds may share WORK with a larger one).
    ran = sorted(study.ran)
    steps = [json.load(open(os.path.join(study.results, n + ".json"))) for n in ran]
    results["wall_seconds"] = union_seconds([(s["started"], s["ended"]) for s in steps if "started" in s]) + sum(
        s.get("seconds", 0) for s in steps if "started" not in s)  # steps cached before steps had timestamps
    results["cpu_seconds"] = sum(s.get("cpu_seconds", 0) for s in steps)
    results["step_times"] = {n: {k: s.get(k) for k in ("seconds", "cpu_seconds", "load")} for n, s in zip(ran, steps)}
    results["commit"] = subprocess.run(["git", "-C", SRC, "rev-parse", "--short", "HEAD"], capture_output=True,
                                       text=True).stdout.strip()
    results["dirty"] = bool(subprocess.run(["git", "-C", SRC, "status", "--porcelain", "--untracked-files=no"],
                                           capture_output=True, text=True).stdout.strip())
    results["sift_version"] = run(study.sift, "--version").strip()  # the binary's own commit (--sift: not HEAD's)
    results["date"] = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    results["machine"] = machine()
    json.dump(results, open(os.path.join(study.work, "study.json"), "w"), indent=1)
    import report  # bench/paper/report.py
    failures = report.write(results, args.report)
    log(f"report: {args.report} ({results['wall_seconds'] / 60:.1f} min of steps)")
    if failures:  # the validity check: a labeler too close to the candidate-blind baselines
        log("validity check failed: " + "; ".join(failures))
        if not args.quick:  # --quick's labelers train for minutes: it reports the check, it does not fail on it
            sys.exit(3)


def machine():
    model = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "?")
    mem = next((int(l.split()[1]) for l in open("/proc/meminfo") if l.startswith("MemTotal")), 0)
    return f"{os.cpu_count()} cores ({model}), {mem / 2**20:.0f} GiB RAM, {platform.system()} {platform.release()}"


if __name__ == "__main__":
    sys.path.insert(0, HERE)
    main()
