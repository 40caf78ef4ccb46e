#!/usr/bin/env bash
# End to end: the labeler's known-answer self-test (sift.json "self_test", docs/artifact.md).
# A tiny labeler gets its probes (`sift selftest --write`) and passes them under --weights f32,
# auto, bf16 and q8 (selftest, score). Then copies altered AFTER the probes were written (a
# token added to tokenizer.json, the answer word "yes", the item template, one weight value)
# are each refused before any row, naming the probe, expected, got and the gap: by sift
# score, batch, eval, calibrate, label and selftest (exit 1), and by sift serve, which stays
# up unhealthy (/health 503 {"status": "unhealthy", "reason"}, /v1/score 503 with the reason,
# the reason in its log). A labeler without probes is used with one warning saying how to add
# them. Engines: an engine naming no fingerprint (as SGLang: tests/e2e/lib/fake_engine.py
# forwarding to a sift serve of another labeler of the same name, whose own probes pass) is
# refused at join with the measured gap; the same engine forwarding to the right labeler, and a
# sift serve --weights bf16 with the client's --weights bf16, pass.
# Usage: bash selftest_refusals.sh <sift-binary> <source-dir>
set -euo pipefail
SIFT=$1
SRC=$2
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

source "$SRC/tests/e2e/lib/tiny_labeler.sh"
make_tiny_labeler "$SIFT" "$SRC" "$WORK/labeler" 5
"$SIFT" synth --out "$WORK/world" --members 12 --candidates 8 --seed 3 2>/dev/null

PYTHONPATH="$SRC/tests/e2e/lib" OMP_NUM_THREADS=1 python3 - "$SIFT" "$WORK" "$SRC" <<'PY'
import json, os, shutil, struct, subprocess, sys
from serve_client import Server, check, wait_until
sift, work, src = sys.argv[1:4]
model = f"{work}/labeler"
world = f"{work}/world"
env = dict(os.environ, OMP_NUM_THREADS="1")
rows = f"{work}/rows.jsonl"
with open(rows, "w") as f:
    f.write(json.dumps({"query": "a profile", "items": ["one", "two"]}) + "\n")
profiles = f"{work}/profiles.jsonl"
with open(profiles, "w") as f:
    for line in open(f"{world}/train.jsonl").readlines()[:2]:
        row = json.loads(line)
        f.write(json.dumps({"id": row["id"], "text": row["query"]}) + "\n")


def run(*args, expect=0):
    out = subprocess.run([sift, *args], capture_output=True, text=True, env=env)
    check(out.returncode == expect, f"sift {' '.join(args)}: exit {out.returncode}, wanted {expect}: {out.stderr}")
    return out


# 0. Without probes (a labeler written before them): used, with one warning line saying how to
# add them.
older = json.load(open(f"{model}/sift.json"))
del older["self_test"]  # make_tiny_labeler writes them, as sift init does
json.dump(older, open(f"{model}/sift.json", "w"))
out = run("score", "--model", model, "--input", rows)
check(out.stderr.count("no \"self_test\" probes") == 1 and "sift selftest --model DIR --write" in out.stderr,
      f"one warning for a labeler without probes: {out.stderr}")
run("selftest", "--model", model, expect=1)  # nothing to run is not a pass

# 1. Probes written; every weight format passes, f32 and auto bitwise.
run("selftest", "--model", model, "--write")
artifact = json.load(open(f"{model}/sift.json"))
check(artifact["note"] == "kept across versions" and artifact["version"] == "e2e-1", "--write keeps the other fields")
probes = artifact["self_test"]["probes"]
check(1 <= len(probes) <= 16 and all(len(p["items"]) == len(p["scores"]) for p in probes), f"probes: {probes}")
for weights in ["f32", "auto", "bf16", "q8"]:
    report = json.loads(run("selftest", "--model", model, "--weights", weights).stdout)
    check(report["passed"] and (report["largest_log_odds_gap"] == 0) == (weights in ("f32", "auto")),
          f"--weights {weights}: {report}")
    out = run("score", "--model", model, "--weights", weights, "--input", rows)
    check("self_test" not in out.stderr, f"no warning once probes are there: {out.stderr}")


# 2. Copies altered after the probes were written.
def copy(name):
    dir = f"{work}/{name}/labeler"
    shutil.copytree(model, dir)
    return dir


def edit_json(path, change):
    data = json.load(open(path))
    change(data)
    json.dump(data, open(path, "w"))


def add_token(t):  # a token for "the": the probe texts encode otherwise
    t["added_tokens"].append({"id": 272, "content": "the", "single_word": False, "lstrip": False, "rstrip": False,
                              "normalized": False, "special": False})


def one_weight(dir):  # one value of the YES row of the (tied) embedding
    yes = json.load(open(f"{dir}/tokenizer.json"))["model"]["vocab"]["YES"]
    with open(f"{dir}/model.safetensors", "r+b") as f:
        size = struct.unpack("<Q", f.read(8))[0]
        header = json.loads(f.read(size))
        tensor = header["model.embed_tokens.weight"]
        check(tensor["dtype"] == "F32", f"an F32 checkpoint: {tensor}")
        f.seek(8 + size + tensor["data_offsets"][0] + 4 * yes * tensor["shape"][1])
        f.write(struct.pack("<f", 30.0))


altered = {}
altered["tokenizer"] = copy("tokenizer")
edit_json(f"{altered['tokenizer']}/tokenizer.json", add_token)
altered["answer"] = copy("answer")
edit_json(f"{altered['answer']}/sift.json", lambda a: a.update(yes="Y"))
altered["template"] = copy("template")
edit_json(f"{altered['template']}/sift.json",
          lambda a: a.update(item_template=a["item_template"].replace("Qualification:", "Qualifications:")))
altered["weight"] = copy("weight")
one_weight(altered["weight"])


def refused(out, what):
    check("fails its self-test" in out.stderr and "probe " in out.stderr and "expects" in out.stderr
          and "log-odds gap" in out.stderr, f"{what}: the refusal names the probe and the gap: {out.stderr}")


labeled = f"{world}/train.jsonl"
for name, dir in altered.items():
    refused(run("score", "--model", dir, "--input", rows, expect=1), f"{name}: sift score")
    out = run("batch", "--model", dir, "--input", rows, "--output", f"{work}/{name}.jsonl", expect=1)
    refused(out, f"{name}: sift batch")
    check(not os.path.exists(f"{work}/{name}.jsonl"), f"{name}: sift batch wrote no output")
    refused(run("eval", "--model", dir, "--input", labeled, expect=1), f"{name}: sift eval")
    refused(run("calibrate", "--model", dir, "--input", labeled, "--dry-run", "--force", expect=1),
            f"{name}: sift calibrate --force")
    refused(run("label", "--model", dir, "--catalog", f"{world}/catalog.jsonl", "--profiles", profiles,
                "--store", f"{work}/{name}.db", expect=1), f"{name}: sift label")
    for weights in ["f32", "q8"]:
        refused(run("selftest", "--model", dir, "--weights", weights, expect=1), f"{name}: sift selftest --weights {weights}")

    server = Server(sift, dir, "--threads", "1", healthy=False)
    try:
        def unhealthy():
            status, _, body = server.request("GET", "/health")
            return status == 503 and isinstance(body, dict) and body.get("status") == "unhealthy"
        wait_until(unhealthy, f"{name}: sift serve's /health did not say unhealthy")
        status, _, body = server.request("GET", "/health")
        check("fails its self-test" in body["reason"] and "log-odds gap" in body["reason"], f"{name}: /health: {body}")
        status, _, body = server.post("/v1/score", {"model": "labeler", "query": "q", "items": ["a"],
                                                    "label_token_ids": [1, 2]})
        check(status == 503 and "fails its self-test" in json.dumps(body), f"{name}: /v1/score: {status} {body}")
        check(server.proc.poll() is None and "fails its self-test" in server.read_log(), f"{name}: up, logged")
    finally:
        server.stop()

# 3. Engines. sift serve with bf16 weights, asked with --weights bf16: passes (bf16 tolerance).
bf16 = Server(sift, model, "--threads", "1", "--weights", "bf16")
local = run("score", "--model", model, "--weights", "bf16", "--input", rows).stdout
check(run("score", "--model", model, "--weights", "bf16", "--input", rows, "--engine",
          f"http://127.0.0.1:{bf16.port}").stdout == local, "sift serve --weights bf16 as an engine")
bf16.stop()

# An engine that names no fingerprint (as SGLang), forwarding to a sift serve of another
# labeler of the same name ("labeler": the weight-altered copy, its probes rewritten so it is
# healthy): refused at join, the gap in the message. Forwarding to the right one: passes.
other = copy("other")
one_weight(other)
run("selftest", "--model", other, "--write")
fake_engine = os.path.join(src, "tests/e2e/lib/fake_engine.py")
for backend_dir, expect in [(other, 1), (model, 0)]:
    backend = Server(sift, backend_dir, "--threads", "1")
    served = backend.request("GET", "/v1/models")[2]
    del served["data"][0]["sift_fingerprint"]
    port_file = f"{work}/fake-{expect}.port"
    fake = subprocess.Popen([sys.executable, fake_engine, "anonymous", json.dumps(served), port_file,
                             f"http://127.0.0.1:{backend.port}"])
    try:
        wait_until(lambda: os.path.exists(port_file), "the forwarding engine wrote no port")
        url = f"http://127.0.0.1:{int(open(port_file).read())}"
        out = run("score", "--model", model, "--input", rows, "--engine", url, "--engine-timeout", "10", expect=expect)
        if expect:
            check(f"engine {url} fails its self-test" in out.stderr and "engine tolerance" in out.stderr, out.stderr)
            out = run("selftest", "--model", model, "--engine", url, "--engine-timeout", "10", expect=1)
            check("fails its self-test" in out.stderr, f"sift selftest --engine: {out.stderr}")
        else:
            report = json.loads(run("selftest", "--model", model, "--engine", url).stdout)
            check(report["arithmetic"] == "engine" and report["passed"], f"sift selftest --engine: {report}")
    finally:
        fake.kill()
        fake.wait()
        backend.stop()
print("selftest_refusals: ok")
PY
