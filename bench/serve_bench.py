#!/usr/bin/env python3
"""The serving benchmark of `sift serve` (bench/README.md, "Serving"): labels/s at a p99
target, served mis vs served packed generation vs served independent, on the bundled
labeler and on the small shape, for N in {20, 50, 100, 200}; then, on the small shape,
N=200 as two requests of 100 with the same query vs one request (the query-KV cache), and
dynamic batching with 8 concurrent clients at N=20 vs one request per forward call (these
two send a fixed number of requests and time them, wall and server CPU).

    python3 bench/serve_bench.py [--sift build/sift] [--work build/serve-bench] [--quick]

Rows: one query of ~Lq = 744 tokens and N items of ~Li = 28 tokens each (the paper's
workload, as in bench_scoring), distinct queries per row (the main table runs with the
query-KV cache off, so no row reuses another's query). For each (labeler, N, mode):

  alone    : median latency (wall, and the server's CPU seconds) of sequential requests
             (3 for mis, 1 for the baselines), after one warm-up request
  saturated: mis: labels/s with 4 clients sending back to back (loadgen --closed-loop with
             4 connections); the baselines: N / alone (one client, since
             one request already keeps the engine busy for seconds)
  at p99   : `sift loadgen --find-max --p99-ms P` (open-loop Poisson), when one request
             alone takes at most half of P; "-" otherwise (unattainable on this machine)

Everything runs in one process tree on this machine, one configuration at a time. On a
shared machine, wall-clock rates swing with the other load; labels per server CPU-second
(user + system time of the server process, from /proc) do not, and their ratios are the
figures to compare.
"""
import argparse
import json
import os
import random
import shutil
import signal
import statistics
import threading
import subprocess
import sys
import tempfile
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.dirname(HERE)
WORDS = ("python cloud nurse welding sql kubernetes cooking finance rust design sales care data team lead "
         "senior engineer years experience project manager customer support marketing research").split()


def sh(*args, **kw):
    return subprocess.run(args, check=True, capture_output=True, text=True, **kw).stdout


class Server:
    def __init__(self, sift, model, *args):
        # --port 0: the server binds a free port itself and writes it to --port-file.
        self.dir = tempfile.mkdtemp(prefix="sift-serve-bench-")
        port_file = os.path.join(self.dir, "port")
        self.proc = subprocess.Popen([sift, "serve", "--model", model, "--port", "0", "--port-file", port_file, *args],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                     env={**os.environ, "OMP_WAIT_POLICY": "passive"})  # idle threads sleep: CPU time is work
        for _ in range(600):
            if self.proc.poll() is not None:
                break
            try:
                self.port = int(open(port_file).read())
                self.url = f"http://127.0.0.1:{self.port}"
                if urllib.request.urlopen(self.url + "/health", timeout=1).status == 200:
                    return
            except OSError:  # no port file yet, or still loading (503)
                time.sleep(0.1)
        raise RuntimeError("sift serve did not start")

    def cpu_seconds(self):
        """User + system CPU time of the server process so far (all its threads)."""
        fields = open(f"/proc/{self.proc.pid}/stat").read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def post(self, path, body):
        req = urllib.request.Request(self.url + path, json.dumps(body).encode(), {"Content-Type": "application/json"})
        with urllib.request.urlopen(req, timeout=600) as r:
            return json.loads(r.read())

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.proc.send_signal(signal.SIGTERM)
        self.proc.wait(timeout=600)
        shutil.rmtree(self.dir, ignore_errors=True)


def tokens_per_word(sift, tokenizer):
    sample = " ".join(random.Random(0).choice(WORDS) for _ in range(2000))
    ids = json.loads(sh(sift, "tokenize", "--tokenizer", tokenizer, "--no-special", input=json.dumps({"text": sample}) + "\n"))
    return len(ids["ids"]) / 2000


def make_rows(path, n_rows, n_items, lq, li, per_word, seed):
    rng = random.Random(seed)
    words = lambda n: " ".join(rng.choice(WORDS) for _ in range(max(1, round(n / per_word))))
    with open(path, "w") as f:
        for r in range(n_rows):
            f.write(json.dumps({"query": f"profile {r}: " + words(lq), "items": [words(li) for _ in range(n_items)]}) + "\n")
    return path


def loadgen(sift, url, rows, *args):
    return json.loads(sh(sift, "loadgen", "--url", url, "--rows", rows, *args))


def measure(sift, model, rows, mode, p99_ms, quick, serve_args):
    lines = open(rows).readlines()
    n = len(json.loads(lines[0])["items"])
    with Server(sift, model, "--kv-cache-mb", "0", *serve_args) as server:
        server.post("/v1/label", {**json.loads(lines[-1]), "mode": mode})  # warm-up: the session grows once
        wall, cpu = [], []
        for k in range(3 if mode == "mis" else 1):
            c, t = server.cpu_seconds(), time.time()
            server.post("/v1/label", {**json.loads(lines[k]), "mode": mode})
            wall.append(time.time() - t)
            cpu.append(server.cpu_seconds() - c)
        alone, alone_cpu = statistics.median(wall), statistics.median(cpu)
        if mode == "mis":
            c = server.cpu_seconds()
            sat = loadgen(sift, server.url, rows, "--mode", mode, "--closed-loop", "--connections", "4",
                          "--duration", str(max(3.0 if quick else 6.0, 3 * alone)))
            saturated, saturated_cpu, errors = sat["labels_per_s"], sat["labels"] / (server.cpu_seconds() - c), sat["errors"]
        else:  # one request alone keeps the engine busy for seconds: closed loop with one client
            saturated, saturated_cpu, errors = n / alone, n / alone_cpu, {}
        at_p99 = None
        if alone * 1000 <= p99_ms / 2:
            fm = loadgen(sift, server.url, rows, "--mode", mode, "--find-max", "--p99-ms", str(p99_ms),
                         "--rate", str(max(0.2, 0.5 / alone)), "--duration", str(3 if quick else 5),
                         "--bisect-steps", "2" if quick else "3", "--connections", "32")
            at_p99 = fm["labels_per_s"]
    return {"n": n, "mode": mode, "alone_ms": alone * 1000, "alone_cpu_s": alone_cpu, "saturated": saturated,
            "saturated_per_cpu_s": saturated_cpu, "saturated_errors": errors, "at_p99": at_p99}


def split_experiment(sift, model, rows_path, serve_args):
    """The query-KV cache: each row of N items (all but the last, a warm-up) sent as two
    requests of N/2 with the same query, one after the other as a client sends the halves of
    a round, vs one request of N; with the cache on and off. Labels/s in wall time and per
    server CPU-second."""
    whole = [json.loads(l) for l in open(rows_path)]
    n = len(whole[0]["items"])
    split = {}
    for label, halves, cache in [(f"one request of {n}", False, "256"), (f"two of {n // 2}, cache on", True, "256"),
                                 (f"two of {n // 2}, cache off", True, "0")]:
        with Server(sift, model, "--kv-cache-mb", cache, *serve_args) as server:
            server.post("/v1/label", whole[-1])  # warm-up (another query)
            c, t = server.cpu_seconds(), time.time()
            for row in whole[:-1]:
                for part in ((row["items"][:n // 2], row["items"][n // 2:]) if halves else (row["items"],)):
                    server.post("/v1/label", {"query": row["query"], "items": part})
            wall, cpu = time.time() - t, server.cpu_seconds() - c
        labels = n * (len(whole) - 1)
        split[label] = {"labels_per_s": labels / wall, "labels_per_cpu_s": labels / cpu}
        print(json.dumps({"split": label, **split[label]}), file=sys.stderr, flush=True)
    return split


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sift", default=os.path.join(SRC, "build", "sift"))
    ap.add_argument("--work", default=os.path.join(SRC, "build", "serve-bench"))
    ap.add_argument("--ns", default="20,50,100,200")
    ap.add_argument("--p99-ms", type=float, default=1000)
    ap.add_argument("--threads", default="2")
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--parts", default="modes,split,batching", help="which experiments to run")
    ap.add_argument("--split-rows", type=int, default=3, help="rows of N=200 sent in the split experiment")
    ap.add_argument("--batching-requests", type=int, default=4, help="requests per client in the batching experiment")
    ap.add_argument("--baseline-max-n", default="small:50",
                    help="labeler:N,... the baselines (generate, independent) run up to N; their labels per "
                         "CPU-second do not depend on N, so larger N repeat the last (marked *)")
    args = ap.parse_args()
    os.makedirs(args.work, exist_ok=True)
    sift = args.sift
    serve_args = ["--threads", args.threads]

    small = os.path.join(args.work, "small")
    if not os.path.exists(os.path.join(small, "sift.json")):
        sh(sift, "make-checkpoint", "--out", small, "--arch", "qwen3", "--preset", "small", "--seed", "1")
        sh("cp", os.path.join(SRC, "tests/scoring/data/byte_bpe_tokenizer.json"), os.path.join(small, "tokenizer.json"))
        json.dump({"format": "sift.scoring/2", "version": "bench-small",
                   "query_template": "<|im_start|>user\nDoes the profile support the qualification?\nProfile: {query}\n",
                   "item_template": "Qualification: {item}<|im_end|>\n<|im_start|>assistant\n",
                   "yes": "YES", "no": "NO", "threshold": 0.5}, open(os.path.join(small, "sift.json"), "w"))
    labelers = [("bundled", os.path.join(SRC, "models", "default-labeler")), ("small", small)]
    parts = set(args.parts.split(","))
    results = []
    caps = dict((k, int(v)) for k, v in (x.split(":") for x in args.baseline_max_n.split(",") if x))
    for name, model in (labelers if "modes" in parts else []):
        per_word = tokens_per_word(sift, os.path.join(model, "tokenizer.json"))
        for n in [int(x) for x in args.ns.split(",")]:
            rows = make_rows(os.path.join(args.work, f"{name}_{n}.jsonl"), 24, n, 720, 24, per_word, n)
            for mode in ["mis", "generate", "independent"]:
                if mode != "mis" and n > caps.get(name, n):
                    continue
                r = measure(sift, model, rows, mode, args.p99_ms, args.quick, serve_args)
                r["labeler"] = name
                results.append(r)
                print(json.dumps(r), file=sys.stderr, flush=True)

    if "split" in parts or "batching" in parts:
        per_word = tokens_per_word(sift, os.path.join(small, "tokenizer.json"))
    split, batching, row_tokens = {}, {}, None
    if "split" in parts:
        whole = make_rows(os.path.join(args.work, "split.jsonl"), args.split_rows + 1, 200, 720, 24, per_word, 7)
        split = split_experiment(sift, small, whole, serve_args)
    if "batching" in parts:
        # Dynamic batching: 8 clients at N=20, each sending its requests back to back; calls of
        # up to 8192 tokens vs one request per call (a call budget of exactly the longest request).
        rows20 = [json.loads(l) for l in open(make_rows(os.path.join(args.work, "batching_20.jsonl"), 8, 20, 720, 24,
                                                          per_word, 20))]
        with Server(sift, small, "--kv-cache-mb", "0", *serve_args) as server:
            row_tokens = max(server.post("/v1/label", r)["usage"]["prompt_tokens"] for r in rows20)
        for label, budget in [("dynamic batching (8192-token calls)", "8192"), ("one request per call", str(row_tokens))]:
            with Server(sift, small, "--kv-cache-mb", "0", "--max-batch-tokens", budget, *serve_args) as server:
                server.post("/v1/label", rows20[0])  # warm-up
                c, t = server.cpu_seconds(), time.time()
                def client(k):
                    for j in range(args.batching_requests):
                        server.post("/v1/label", rows20[(k + j) % len(rows20)])
                threads = [threading.Thread(target=client, args=(k,)) for k in range(8)]
                for th in threads: th.start()
                for th in threads: th.join()
                wall, cpu = time.time() - t, server.cpu_seconds() - c
            labels = 8 * args.batching_requests * 20
            batching[label] = {"labels_per_s": labels / wall, "labels_per_cpu_s": labels / cpu}
            print(json.dumps({"batching": label, **batching[label]}), file=sys.stderr, flush=True)

    print(json.dumps({"results": results, "split": split, "batching": batching, "row_tokens": row_tokens}))


if __name__ == "__main__":
    main()
