#!/usr/bin/env bash
# End to end: an engine swapped for another while `sift score --engine` and `sift batch
# --engine` use it is caught at its first answer, and no row it scored is written. sift serve
# names its labeler's fingerprint in every /v1/score and /v1/label answer (the same as
# /v1/models). Behind a load balancer that moves the same connections from a replica of this
# labeler to one of another labeler under the same name (tests/e2e/lib/fake_engine.py
# switch), the run fails (exit 1) naming the engine and both fingerprints, every row written
# the bytes of local scoring. An engine that names no fingerprint (as SGLang) and restarts as
# another engine of the same name, closing its kept-alive connections (fake_engine.py
# restart), is checked again on the new connection before anything is sent on it: the same.
# Usage: bash serve_engines_swap.sh <sift-binary> <source-dir>
set -euo pipefail
SIFT=$1
SRC=$2
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

source "$SRC/tests/e2e/lib/tiny_labeler.sh"
make_tiny_labeler "$SIFT" "$SRC" "$WORK/labeler" 5
mkdir -p "$WORK/other"
make_tiny_labeler "$SIFT" "$SRC" "$WORK/other/labeler" 6  # the same name, other weights

PYTHONPATH="$SRC/tests/e2e/lib" OMP_NUM_THREADS=1 python3 - "$SIFT" "$SRC" "$WORK" <<'PY'
import json, os, subprocess, sys
from batch_checks import check, make_rows, write, read_bytes
from serve_client import Server, wait_until
sift, src, work = sys.argv[1:4]
model = f"{work}/labeler"
env = dict(os.environ, OMP_NUM_THREADS="1")
rows = write(f"{work}/rows.jsonl", make_rows(120, seed=4, bad_every=29))
fake_engine = f"{src}/tests/e2e/lib/fake_engine.py"


def run(*args):
    return subprocess.run([sift, *args], capture_output=True, text=True, env=env)


def fingerprint(server):
    return server.request("GET", "/v1/models")[2]["data"][0]["sift_fingerprint"]


def scored(server):
    return server.metric('sift_requests_total{route="/v1/score",status="200"}') or 0


def through_fake(command, *fake_args):
    """sift COMMAND (score: to stdout; batch: to OUT) on the rows, its engine fake_engine.py
    FAKE_ARGS on the port it binds: (the run, the fake's URL). Checks that it failed (exit 1)
    and that every row it wrote is the local run's line of that row: none was scored by
    another labeler."""
    port_file, output = f"{work}/fake.port", f"{work}/{command}.jsonl"
    for stale in (port_file, output, f"{output}.progress"):
        if os.path.exists(stale):
            os.remove(stale)
    fake = subprocess.Popen([sys.executable, fake_engine, fake_args[0], fake_args[1], port_file, *fake_args[2:]],
                            stderr=subprocess.DEVNULL)
    try:
        wait_until(lambda: os.path.exists(port_file), "the fake engine wrote no port")
        url = f"http://127.0.0.1:{int(open(port_file).read())}"
        args = ["--output", output, "--threads", "1"] if command == "batch" else []
        out = run(command, "--model", model, "--input", rows, *args, "--engine", url)
    finally:
        fake.kill()
        fake.wait()
    what = f"sift {command} --engine on fake_engine.py {fake_args[0]}"
    check(out.returncode == 1, f"{what}: exit {out.returncode}, wanted 1: {out.stderr}")
    written = out.stdout if command == "score" else (open(output).read() if os.path.exists(output) else "")
    lines, expected = written.splitlines(), local[command].splitlines()
    check(len(lines) < len(expected), f"{what}: the run wrote {len(lines)} of {len(expected)} rows, not fewer")
    check(lines == expected[:len(lines)], f"{what}: a row written differs from local scoring (another labeler's)")
    return out, url


local_score = run("score", "--model", model, "--input", rows)
check(local_score.returncode == 0, f"local sift score: {local_score.stderr}")
local_batch = run("batch", "--model", model, "--input", rows, "--output", f"{work}/local.jsonl", "--threads", "1")
check(local_batch.returncode == 0, f"local sift batch: {local_batch.stderr}")
local = {"score": local_score.stdout, "batch": open(f"{work}/local.jsonl").read()}

with Server(sift, model, "--threads", "1") as a, Server(sift, f"{work}/other/labeler", "--threads", "1") as b:
    ours, theirs = fingerprint(a), fingerprint(b)
    check(ours != theirs, "two labelers, one fingerprint")

    # 1. Every answer names the labeler, as /v1/models does.
    ids = a.request("GET", "/v1/models")[2]["data"][0]["answers"]
    status, _, answer = a.post("/v1/score", {"query": [1, 2, 3], "items": [[4, 5], [6]],
                                             "label_token_ids": [ids["yes"]["id"], ids["no"]["id"]], "apply_softmax": True})
    check(status == 200 and answer["sift_fingerprint"] == ours, f"/v1/score names the fingerprint: {status} {answer}")
    status, _, answer = a.post("/v1/label", {"query": "python", "items": ["python", "welding"]})
    check(status == 200 and answer["sift_fingerprint"] == ours, f"/v1/label names the fingerprint: {status} {answer}")

    # 2. A load balancer moves the same connections from A to B after 5 answers.
    for command in ("score", "batch"):
        b_before = scored(b)
        out, url = through_fake(command, "switch", "-", f"http://127.0.0.1:{a.port}", f"http://127.0.0.1:{b.port}", "5")
        check(scored(b) > b_before, f"sift {command}: the other replica never answered (no swap happened): {out.stderr}")
        # Caught by the answer's fingerprint, or (on a busy machine, where a connection may open
        # after the swap) by the new connection's check: either way it names the engine and both.
        check((f"engine {url} answered a /v1/score request as the labeler with fingerprint {theirs}" in out.stderr
               or f"engine {url} serves labeler" in out.stderr and f"with fingerprint {theirs}" in out.stderr)
              and ours in out.stderr and model in out.stderr,
              f"sift {command}, a replica swapped: the error names the engine and both: {out.stderr}")

    # 3. An engine without a fingerprint (as SGLang) restarts as another engine of the name after
    # 5 answers, closing every connection: the new connection is checked before it is used.
    served = a.request("GET", "/v1/models")[2]
    del served["data"][0]["sift_fingerprint"]
    for command in ("score", "batch"):
        out, url = through_fake(command, "restart", json.dumps(served), f"http://127.0.0.1:{a.port}", "", "5")
        check(f"engine {url} serves labeler with a vocabulary of 640 tokens, but this labeler ({model}) has 512"
              in out.stderr, f"sift {command}, an engine restarted: the error names the engine and both: {out.stderr}")
print("serve_engines_swap: ok")
PY
