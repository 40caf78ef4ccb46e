#!/usr/bin/env bash
# End to end: engines whose answers are hostile (tests/e2e/lib/fake_engine.py) cost a clean
# error (exit 1, one "sift: error:" line), never a crash or a runaway allocation: a /v1/score
# answer nested 100,000 arrays deep (larger than its request's answer can be: refused by its
# Content-Length, which arrives with the body's first bytes) or 30,000 deep (within that), a
# /v1/models answer nested 100,000 deep; a 256 MiB /v1/score answer (chunked), refused
# as it arrives (the client under a 2 GiB address-space limit, which reading it whole would
# break); an error message and a model id holding terminal escape sequences and newlines, which
# reach the terminal escaped.
# Usage: bash serve_engines_answers.sh <sift-binary> <source-dir>
set -euo pipefail
SIFT=$1
SRC=$2
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

source "$SRC/tests/e2e/lib/tiny_labeler.sh"
make_tiny_labeler "$SIFT" "$SRC" "$WORK/labeler" 5

PYTHONPATH="$SRC/tests/e2e/lib" OMP_NUM_THREADS=1 python3 - "$SIFT" "$SRC" "$WORK" <<'PY'
import json, os, subprocess, sys
from batch_checks import check, write
from serve_client import Server, wait_until
from sift_build import sanitized
sift, src, work = sys.argv[1:4]
model = f"{work}/labeler"
env = dict(os.environ, OMP_NUM_THREADS="1")
rows = write(f"{work}/rows.jsonl", '{"query": "python sql", "items": ["python", "welding"]}\n'
                                   '{"query": "kubernetes", "items": ["cloud"]}\n')
fake_engine = f"{src}/tests/e2e/lib/fake_engine.py"
with Server(sift, model, "--threads", "1") as replica:
    models_body = json.dumps(replica.request("GET", "/v1/models")[2])


def against(mode, models=models_body, limit=None):
    """sift score --engine on a fake engine of `mode` (under an address-space limit of `limit`
    bytes): its exit status and stderr, checked to be one clean error."""
    port_file = f"{work}/{mode}.port"
    fake = subprocess.Popen([sys.executable, fake_engine, mode, models, port_file], stderr=subprocess.DEVNULL)
    try:
        wait_until(lambda: os.path.exists(port_file), f"the {mode} engine wrote no port")
        url = f"http://127.0.0.1:{int(open(port_file).read())}"
        command = [sift, "score", "--model", model, "--input", rows, "--engine", url, "--engine-timeout", "2"]
        if limit:
            command = ["prlimit", f"--as={limit}", "--", *command]
        out = subprocess.run(command, capture_output=True, text=True, env=env)
    finally:
        fake.kill()
        fake.wait()
    check(out.returncode == 1 and out.stdout == "", f"{mode}: exit {out.returncode}, wanted 1 (a clean error): {out.stderr}")
    errors = [line for line in out.stderr.splitlines() if line.startswith("sift: error: ")]
    check(len(errors) == 1 and url in errors[0], f"{mode}: one error line naming the engine: {out.stderr}")
    return errors[0]


# Nested deep: in a /v1/score answer (retried, then the timeout names it), in /v1/models.
error = against("deep")
check("answered 200 with a body of more than" in error, f"deep: {error}")
error = against("deep-within")
check("answered 200 with JSON nested deeper than 64 levels" in error, f"deep-within: {error}")
error = against("deep-models")
check("GET /v1/models did not answer an OpenAI model list: JSON nested deeper than 64 levels" in error,
      f"deep-models: {error}")

# 256 MiB of score rows for two requests of at most two items: refused past the bound of that.
error = against("huge", limit=None if sanitized(sift) else 2 << 30)
check("answered 200 with a body of more than" in error and "more than this request's answer can be" in error,
      f"huge: {error}")

# Escape sequences and newlines from the engine reach the terminal as text.
error = against("escape")
check("refused a /v1/score request (400): bad \\x1b[2J\\x1b]0;owned\\x07request\\nsift: ok\\u009b31m" in error,
      f"escape: {error}")
evil = json.loads(models_body)
evil["data"][0]["id"] = "labeler\x1b[8m\r\nsift: done"
evil["data"][0].pop("sift_fingerprint")  # else the labeler is found by its fingerprint under any name
error = against("error", models=json.dumps(evil))
check("serves labeler\\x1b[8m\\r\\nsift: done, not labeler" in error, f"an escaping model id: {error}")
print("serve_engines_answers: ok")
PY
