#!/usr/bin/env bash
# End to end: sift score, batch, eval, calibrate and label with --engine on a fleet of real
# `sift serve` replicas on loopback (each on the port it chose, --port 0 --port-file).
# Against three replicas the output is byte-identical to local scoring (eval's report and
# calibrate's threshold the same, label's store the same judgments and scores); one replica
# killed with SIGKILL while it holds requests, the job still completes byte-identical; every
# replica down, the job fails with exit 1 naming each engine's last failure, and once
# replicas are back --resume completes it byte-identical; sift label keeps two calls in flight
# on an engine; a replica serving another labeler
# (the same name, other weights) is refused before any row is sent; a replica with a tiny
# queue answers 429 and costs retries, not errors; engines that answer wrongly or not at all
# (tests/e2e/lib/fake_engine.py) cost retries beside a good one and fail the job alone; a
# job begun here is not resumed on an engine without a fingerprint, nor the reverse (refused,
# OUT untouched), and one begun here completes on sift serve replicas; nor are shards of the
# two kinds merged.
# Usage: bash serve_engines.sh <sift-binary> <source-dir>
set -euo pipefail
SIFT=$1
SRC=$2
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

source "$SRC/tests/e2e/lib/tiny_labeler.sh"
make_tiny_labeler "$SIFT" "$SRC" "$WORK/labeler" 5
mkdir -p "$WORK/other"
make_tiny_labeler "$SIFT" "$SRC" "$WORK/other/labeler" 6  # the same name, other weights
"$SIFT" synth --out "$WORK/world" --members 60 --candidates 30 --seed 3 2>/dev/null

PYTHONPATH="$SRC/tests/e2e/lib" OMP_NUM_THREADS=1 python3 - "$SIFT" "$WORK" <<'PY'
import hashlib, json, os, shutil, subprocess, sys, threading
from batch_checks import check, make_rows, write, read_bytes
from label_checks import Sift, without_run
from serve_client import Server, wait_until
sift, work = sys.argv[1:3]
model = f"{work}/labeler"
env = dict(os.environ, OMP_NUM_THREADS="1")
small = write(f"{work}/small.jsonl", make_rows(60, seed=1, bad_every=13))
big = write(f"{work}/big.jsonl", make_rows(400, seed=2, bad_every=37))


def run(*args, expect=0):
    out = subprocess.run([sift, *args], capture_output=True, text=True, env=env)
    check(out.returncode == expect, f"sift {' '.join(args)}: exit {out.returncode}, wanted {expect}: {out.stderr}")
    return out


def batch(input_path, output, *args, expect=0):
    return run("batch", "--model", model, "--input", input_path, "--output", output, "--threads", "1",
               "--checkpoint-seconds", "0", *args, expect=expect)


def engines(*servers):
    return ",".join(f"http://127.0.0.1:{s.port}" for s in servers)


def scored(server, status="200"):
    return server.metric(f'sift_requests_total{{route="/v1/score",status="{status}"}}') or 0


batch(small, f"{work}/local_small.jsonl")
batch(big, f"{work}/local_big.jsonl")
local_score = run("score", "--model", model, "--input", small).stdout

# 1. Three replicas: the same bytes as local scoring, every replica used.
replicas = [Server(sift, model, "--threads", "1") for _ in range(3)]
batch(small, f"{work}/fleet_small.jsonl", "--engine", engines(*replicas))
check(read_bytes(f"{work}/fleet_small.jsonl") == read_bytes(f"{work}/local_small.jsonl"),
      "sift batch --engine a,b,c differs from local sift batch")
check(all(scored(r) > 0 for r in replicas), f"not every replica scored: {[scored(r) for r in replicas]}")
fleet_score = run("score", "--model", model, "--input", small, "--engine", engines(*replicas)).stdout
check(fleet_score == local_score, "sift score --engine differs from local sift score")
# An engine on IPv6 loopback: the Host header names it in brackets ([::1]:port), as the
# server's Host check requires.
ipv6 = Server(sift, model, "--threads", "1", host="::1")
ipv6_score = run("score", "--model", model, "--input", small, "--engine", f"http://[::1]:{ipv6.port}").stdout
check(ipv6_score == local_score, "sift score --engine http://[::1]:PORT differs from local sift score")
ipv6.stop()
# The fingerprint, computed here apart: SHA-256 over the labeler's files in name order, each
# as its name, its size and its bytes.
sha = hashlib.sha256()
for name in sorted(f for f in os.listdir(model) if f in ("config.json", "tokenizer.json", "sift.json")
                   or f.endswith(".safetensors") or f == "model.safetensors.index.json"):
    data = read_bytes(f"{model}/{name}")
    sha.update(f"{name}\n{len(data)}\n".encode() + data)
# sift eval and sift calibrate on the fleet: the same report (but for the speed), the same threshold.
def report(*args):
    return {k: v for k, v in json.loads(run(*args).stdout).items() if "second" not in k}
labeled = f"{work}/world/validation.jsonl"
for command in (["eval", "--shuffles", "2"], ["calibrate", "--dry-run", "--force"]):  # a random labeler: --force
    local_report = report(*command, "--model", model, "--input", labeled)
    fleet_report = report(*command, "--model", model, "--input", labeled, "--engine", engines(*replicas))
    check(fleet_report == local_report, f"sift {command[0]} --engine: {fleet_report} vs {local_report}")
models = replicas[0].request("GET", "/v1/models")[2]["data"][0]
check(models["sift_fingerprint"] == "sha256:" + sha.hexdigest() and models["vocab_size"] == 512,
      f"/v1/models names the labeler's fingerprint and vocabulary: {models}")

# 2. One replica killed (SIGKILL) while it holds requests (its engine gated): the job completes,
# byte-identical, on the others.
held = Server(sift, model, "--threads", "1", gated=True)
job = subprocess.Popen([sift, "batch", "--model", model, "--input", big, "--output", f"{work}/killed.jsonl",
                        "--threads", "1", "--engine", engines(replicas[0], held, replicas[1]),
                        "--engine-timeout", "300"],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
# Queued, or taken by its engine and held at the gate.
wait_until(lambda: (held.metric("sift_queue_requests") or 0) + (held.metric("sift_queue_wait_seconds_count") or 0) >= 1,
           "no request reached the held replica")
held.proc.kill()
out, err = job.communicate(timeout=600)
check(job.returncode == 0, f"the job failed after one replica was killed: {err}")
check(read_bytes(f"{work}/killed.jsonl") == read_bytes(f"{work}/local_big.jsonl"),
      "the job with a replica killed differs from local sift batch")
held.close()

# 3. Every replica down part way: exit 1 naming each engine; restarted replicas and --resume
# complete the job byte-identical.
# Calls of a few rows (--max-batch-tokens 600; every row fits one request of it), so that
# rows are written while most of the job is still held at the last replica's gate.
last = Server(sift, model, "--threads", "1", gated=True)
for r in replicas:
    r.stop()
down = f"{work}/down.jsonl"
small_calls = ["--max-batch-tokens", "600"]
job = subprocess.Popen([sift, "batch", "--model", model, "--input", big, "--output", down, "--threads", "1",
                        "--checkpoint-seconds", "0", "--engine", engines(replicas[2], last), "--engine-timeout", "2",
                        *small_calls],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
def some_rows_written():
    last.release(1)
    return os.path.exists(down) and os.path.getsize(down) > 0
wait_until(some_rows_written, "no rows written through the last replica")
last.proc.kill()
out, err = job.communicate(timeout=600)
check(job.returncode == 1, f"all engines down: exit {job.returncode}, wanted 1: {err}")
check("no engine answered for 2 s" in err and f"127.0.0.1:{replicas[2].port}" in err
      and f"127.0.0.1:{last.port}" in err, f"the error names every engine: {err}")
written = read_bytes(down)
check(0 < len(written) < len(read_bytes(f"{work}/local_big.jsonl")), "the failed job wrote part of its output")
for r in replicas:
    r.close()
last.close()
replicas = [Server(sift, model, "--threads", "1") for _ in range(3)]
out = batch(big, down, "--resume", "--engine", engines(*replicas), *small_calls)
check(json.loads(out.stdout)["resumed"] is True, f"--resume resumed: {out.stdout}")
check(read_bytes(down) == read_bytes(f"{work}/local_big.jsonl"), "--resume on restarted replicas differs from local")

# 4. A replica serving another labeler under the same name: refused before any row is sent.
with Server(sift, f"{work}/other/labeler", "--threads", "1") as other:
    good_before = scored(replicas[0])
    out = batch(small, f"{work}/refused.jsonl", "--engine", engines(replicas[0], other), expect=1)
    check("fingerprint" in out.stderr and f"127.0.0.1:{other.port}" in out.stderr, f"refusal: {out.stderr}")
    theirs = other.request("GET", "/v1/models")[2]["data"][0]["sift_fingerprint"]
    ours = replicas[0].request("GET", "/v1/models")[2]["data"][0]["sift_fingerprint"]
    check(theirs != ours and theirs in out.stderr and ours in out.stderr, f"the refusal names both: {out.stderr}")
    # The good replica answered the labeler's self-test probes as it joined (one request each), no row.
    probes = len(json.load(open(f"{model}/sift.json"))["self_test"]["probes"])
    check(scored(other) == 0 and scored(replicas[0]) == good_before + probes, "a row was sent before the refusal")
    check(not os.path.exists(f"{work}/refused.jsonl"), "the refused job wrote an output")

# A replica holding the weights as q8: refused for a run of the default weights; with
# --weights q8, the bytes of a local --weights q8 run.
with Server(sift, model, "--threads", "1", "--weights", "q8") as q8:
    out = batch(small, f"{work}/q8-refused.jsonl", "--engine", engines(q8), expect=1)
    check("holds the weights as q8" in out.stderr and scored(q8) == 0, f"a q8 replica for an auto run: {out.stderr}")
    batch(small, f"{work}/local_q8.jsonl", "--weights", "q8")
    batch(small, f"{work}/fleet_q8.jsonl", "--weights", "q8", "--engine", engines(q8))
    check(read_bytes(f"{work}/fleet_q8.jsonl") == read_bytes(f"{work}/local_q8.jsonl"), "--weights q8 on a q8 replica")

# 5. A replica whose queue is full (its engine held at the gate with one request, the queue
# holding exactly one row's prompt tokens and filled by another) answers every request of the
# job 429 until the gate opens: 429s cost retries, not errors.
same = {"query": "python sql kubernetes", "items": ["python", "welding", "cloud"]}
busy = write(f"{work}/busy_rows.jsonl", "".join(json.dumps(dict(same, id=i)) + "\n" for i in range(20)))
batch(busy, f"{work}/local_busy.jsonl")
row_tokens = replicas[0].post("/v1/label", same)[2]["usage"]["prompt_tokens"]
# The labeler's self-test probes go through the queue too as the engine joins: a copy whose one
# probe is this row, so they are 429'd as rows are (the built-in probes are longer than the queue).
short = f"{work}/short/labeler"
shutil.copytree(model, short)
write(f"{work}/short_probe.jsonl", json.dumps({"query": same["query"], "items": same["items"]}) + "\n")
run("selftest", "--model", short, "--write", "--probes", f"{work}/short_probe.jsonl")
with Server(sift, short, "--threads", "1", "--max-queue-tokens", str(row_tokens), gated=True) as tiny:
    fillers = [threading.Thread(target=tiny.post, args=("/v1/label", same)) for _ in range(2)]
    fillers[0].start()
    wait_until(lambda: (tiny.metric("sift_queue_wait_seconds_count") or 0) == 1, "the engine never took the first request")
    fillers[1].start()
    wait_until(lambda: tiny.metric("sift_queue_requests") == 1, "the second request never reached the queue")
    job = subprocess.Popen([sift, "batch", "--model", short, "--input", busy, "--output", f"{work}/busy.jsonl",
                            "--threads", "1", "--engine", engines(tiny)],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    wait_until(lambda: scored(tiny, "429") > 0, "no 429 from the replica with a full queue")
    tiny.release(1 << 12)
    for filler in fillers:
        filler.join()
    out, err = job.communicate(timeout=600)
    check(job.returncode == 0, f"sift batch against a replica answering 429: {err}")
    check(read_bytes(f"{work}/busy.jsonl") == read_bytes(f"{work}/local_busy.jsonl"), "429s changed the output")
# 6. Engines that answer wrongly (a wrong number of scores, not JSON, 1.5, a 500) or not at
# all (--engine-timeout 3: a request held for half that is sent again elsewhere): beside a good
# replica the job is byte-identical; alone, it fails naming what the engine did.
models_body = json.dumps(replicas[0].request("GET", "/v1/models")[2])
fake_engine = os.path.join(os.path.dirname(os.path.abspath(sys.modules["batch_checks"].__file__)), "fake_engine.py")
expected = {"wrong-count": "score rows for", "not-json": "not JSON", "not-probability": "not a probability",
            "error": "500: the engine fell over", "hang": "no answer within 1.5 s"}
for mode, failure in expected.items():
    port_file = f"{work}/fake-{mode}.port"
    fake = subprocess.Popen([sys.executable, fake_engine, mode, models_body, port_file])
    try:
        wait_until(lambda: os.path.exists(port_file), f"the {mode} engine wrote no port")
        fake_url = f"http://127.0.0.1:{int(open(port_file).read())}"
        mixed = f"{work}/fake-{mode}.jsonl"
        batch(small, mixed, "--engine", f"{fake_url},{engines(replicas[1])}", "--engine-timeout", "3")
        check(read_bytes(mixed) == read_bytes(f"{work}/local_small.jsonl"), f"a {mode} engine changed the output")
        out = batch(small, f"{work}/fake-{mode}-alone.jsonl", "--engine", fake_url, "--engine-timeout", "3", expect=1)
        check(fake_url in out.stderr and failure in out.stderr, f"the {mode} engine's failure is named: {out.stderr}")
    finally:
        fake.kill()
        fake.wait()

# An engine that names no fingerprint (as SGLang) but scores right: accepted by its name and
# vocabulary, with one warning that exactness is not verified; refused beside one that does.
served = replicas[0].request("GET", "/v1/models")[2]
del served["data"][0]["sift_fingerprint"]
port_file = f"{work}/fake-forward.port"
fake = subprocess.Popen([sys.executable, fake_engine, "forward", json.dumps(served), port_file, engines(replicas[0])])
try:
    wait_until(lambda: os.path.exists(port_file), "the forwarding engine wrote no port")
    forwarded = f"{work}/forwarded.jsonl"
    out = batch(small, forwarded, "--engine", f"http://127.0.0.1:{int(open(port_file).read())}")
    check(read_bytes(forwarded) == read_bytes(f"{work}/local_small.jsonl"), "the forwarding engine's output differs")
    check(out.stderr.count("not verified") == 1, f"one warning that exactness is not verified: {out.stderr}")
    # Beside a sift serve replica, which proves its labeler: refused, one arithmetic per run.
    out = batch(small, f"{work}/mixed.jsonl", "--engine", f"{engines(replicas[1])},http://127.0.0.1:{int(open(port_file).read())}",
                expect=1)
    check("one arithmetic" in out.stderr and not os.path.exists(f"{work}/mixed.jsonl"), f"a mixed fleet: {out.stderr}")

    # A job keeps the arithmetic it began with. Jobs stopped part way (--errors-max 0: at the
    # first bad row), one begun here and one on the fingerprint-less engine: --resume with the
    # other kind is refused before anything is written or cut (OUT and OUT.progress the same
    # bytes), naming both; with the job's own kind it completes, here and on sift serve
    # replicas alike (the same bits).
    unverified = f"http://127.0.0.1:{int(open(port_file).read())}"
    for begun, other, same in [([], ["--engine", unverified], ["--engine", engines(replicas[1])]),
                               (["--engine", unverified], [], ["--engine", unverified])]:
        stopped = f"{work}/stopped-{'there' if begun else 'here'}.jsonl"
        out = batch(small, stopped, *begun, "--errors-max", "0", expect=1)
        check("over --errors-max 0" in out.stderr, f"stopped at the first bad row: {out.stderr}")
        before = (read_bytes(stopped), read_bytes(f"{stopped}.progress"))
        check(0 < len(before[0]) < len(read_bytes(f"{work}/local_small.jsonl")), "the stopped job wrote part of its rows")
        out = batch(small, stopped, "--resume", *other, expect=1)
        kinds = ["sift's own arithmetic", "engines that cannot prove their labeler"]
        check(all(kind in out.stderr for kind in kinds) and "two arithmetics" in out.stderr
              and out.stderr.index(kinds[0 if not begun else 1]) < out.stderr.index("this run would score"),
              f"resuming {begun or 'a local job'} with {other or 'no engine'}: {out.stderr}")
        check((read_bytes(stopped), read_bytes(f"{stopped}.progress")) == before,
              f"a refused --resume changed {stopped} or its progress file")
        out = batch(small, stopped, "--resume", *same)
        check(json.loads(out.stdout)["resumed"] is True, f"--resume {same}: {out.stdout}")
        check(read_bytes(stopped) == read_bytes(f"{work}/local_small.jsonl"), f"--resume {same} differs from local")
        # Complete, it is still refused with the other kind (nothing to write, but the same answer).
        out = batch(small, stopped, "--resume", *other, expect=1)
        check("two arithmetics" in out.stderr, f"a complete job resumed with the other kind: {out.stderr}")
    # Nor are shards of the two kinds merged.
    halves = [f"{work}/half-{k}.jsonl" for k in (1, 2)]
    batch(small, halves[0], "--shard", "1/2")
    batch(small, halves[1], "--shard", "2/2", "--engine", unverified)
    out = run("batch", "merge", "--output", f"{work}/halves.jsonl", *halves, expect=1)
    check("two arithmetics" in out.stderr and "engines that cannot prove their labeler" in out.stderr
          and not os.path.exists(f"{work}/halves.jsonl"), f"a merge of shards of two kinds: {out.stderr}")
finally:
    fake.kill()
    fake.wait()

# 7. sift label --engine fills a store with the judgments and scores of a local run.
labels = Sift(sift, model, f"{work}/world/catalog.jsonl")
profiles = write(f"{work}/profiles.jsonl", "".join(
    json.dumps({"id": r["id"], "text": r["query"]}) + "\n"
    for r in map(json.loads, open(f"{work}/world/train.jsonl").read().splitlines()[:20])))
rounds = ["--k", "8", "--max-rounds", "3", "--stop-below", "0.3"]
local_summary, _ = labels.label(profiles, f"{work}/local.db", *rounds)
fleet_summary, _ = labels.label(profiles, f"{work}/fleet.db", *rounds, "--engine", engines(*replicas))
check(local_summary["pairs_judged"] > 0 and local_summary["pairs_judged"] == fleet_summary["pairs_judged"],
      f"the same pairs judged: {local_summary} vs {fleet_summary}")
check(without_run(labels.export(f"{work}/fleet.db")) == without_run(labels.export(f"{work}/local.db")),
      "sift label --engine stored other judgments or scores than a local run")
# ... and keeps two calls in flight on each engine: the rounds of two profiles go out together
# (one profile at a time would hold one); through a slow engine the store is the same.
port_file = f"{work}/fake-slow.port"
fake = subprocess.Popen([sys.executable, fake_engine, "slow", models_body, port_file, engines(replicas[0])])
try:
    wait_until(lambda: os.path.exists(port_file), "the slow engine wrote no port")
    slow_summary, _ = labels.label(profiles, f"{work}/slow.db", *rounds,
                                   "--engine", f"http://127.0.0.1:{int(open(port_file).read())}")
    most = int(open(port_file + ".most").read())
    check(most == 2, f"sift label --engine kept {most} requests in flight on its one engine, wanted 2")
    check(without_run(labels.export(f"{work}/slow.db")) == without_run(labels.export(f"{work}/local.db")),
          "sift label through a slow engine stored other judgments or scores than a local run")
finally:
    fake.kill()
    fake.wait()

for r in replicas:
    r.stop()
    r.close()
print("serve_engines: ok")
PY
