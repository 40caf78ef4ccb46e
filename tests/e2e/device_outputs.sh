#!/usr/bin/env bash
# End to end: every command that writes a file, given a device or a FIFO as its output,
# either writes into it directly (the node stays a device or FIFO, a FIFO's reader gets the
# bytes) or refuses it with one line before any work; none replaces the node or leaves a
# temporary or lock file beside it. The device is a private null device made with mknod in
# a temporary folder, never the machine's /dev/null. The FIFO checks always run; the device
# checks need mknod (root): without it the script exits 77 (skipped) after the FIFO checks.
#   written:  score (--output, --dump-generations), prompt, labels export, tokenizer train,
#             and stdout onto the device for eval, cost, tokenize
#   refused:  batch and batch merge (OUT must be a file to resume), calibrate --out and
#             --out-dir, make-checkpoint, synth, train (folders), label and labels --store
# Usage: bash device_outputs.sh <sift-binary> <source-dir>
set -euo pipefail
SIFT=$1
SRC=$2
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
source "$SRC/tests/e2e/lib/tiny_labeler.sh"
make_tiny_labeler "$SIFT" "$SRC" "$WORK/labeler" 11
"$SIFT" synth --out "$WORK/world" --members 12 --candidates 10 --seed 4 2>/dev/null

python3 - "$SIFT" "$WORK" <<'PY'
import json, os, stat, subprocess, sys, threading
sift, work = sys.argv[1:3]
model, world = f"{work}/labeler", f"{work}/world"
env = dict(os.environ, OMP_NUM_THREADS="1")


def check(cond, what):
    if not cond:
        print("FAIL:", what, file=sys.stderr)
        sys.exit(1)


def run(*args, code=0, stdout=subprocess.PIPE, timeout=120):
    out = subprocess.run([sift, *args], stdout=stdout, stderr=subprocess.PIPE, text=True, env=env, timeout=timeout)
    check(out.returncode == code, f"sift {' '.join(args)}: exit {out.returncode}, expected {code}: {out.stderr}")
    return out


rows, profiles = f"{work}/rows.jsonl", f"{work}/profiles.jsonl"
with open(rows, "w") as f, open(profiles, "w") as p:
    for line in open(f"{world}/train.jsonl"):
        r = json.loads(line)
        f.write(json.dumps({"id": r["id"], "query": r["query"], "items": r["items"][:4], "labels": r["labels"][:4]}) + "\n")
        p.write(json.dumps({"id": r["id"], "text": r["query"]}) + "\n")
store = f"{work}/labels.db"
run("label", "--model", model, "--catalog", f"{world}/catalog.jsonl", "--profiles", profiles, "--store", store,
    "--k", "4", "--max-rounds", "1", "-q")
corpus = f"{work}/corpus.txt"
with open(corpus, "w") as f:
    f.write("".join(json.loads(l)["query"] + "\n" for l in open(f"{world}/train.jsonl")) * 20)
run("batch", "--model", model, "--input", rows, "--output", f"{work}/shard.jsonl", "--shard", "1/1", "-q")

# What each command writes, from a regular file, to compare with what reaches a FIFO.
WRITERS = {
    "score": ["score", "--model", model, "--input", rows, "--output"],
    "prompt": ["prompt", "--model", model, "--input", rows, "--output"],
    "labels export": ["labels", "export", "--store", store, "--output"],
    "tokenizer train": ["tokenizer", "train", "--vocab-size", "300", "--input", corpus, "-q", "--out"],
}
expected = {}
for name, args in WRITERS.items():
    path = f"{work}/expected_{name.replace(' ', '_')}"
    run(*args, path)
    expected[name] = open(path, "rb").read()
    check(len(expected[name]) > 0, f"{name} wrote nothing")


def only(folder, names):
    check(sorted(os.listdir(folder)) == sorted(names), f"{folder} holds {sorted(os.listdir(folder))}, not {names}")


# 1. A FIFO: the command writes into it, a reader gets every byte, the FIFO stays a FIFO.
pipes = f"{work}/pipes"
os.mkdir(pipes)
fifo = f"{pipes}/fifo"
os.mkfifo(fifo)
for name, args in WRITERS.items():
    got = []
    reader = threading.Thread(target=lambda: got.append(open(fifo, "rb").read()), daemon=True)
    reader.start()
    run(*args, fifo)
    reader.join(30)
    check(not reader.is_alive() and got == [expected[name]], f"{name}: the FIFO's reader got other bytes")
    check(stat.S_ISFIFO(os.lstat(fifo).st_mode), f"{name} replaced the FIFO")
    only(pipes, ["fifo"])
# sift batch refuses a FIFO at once, without opening it (no reader: opening would wait).
out = run("batch", "--model", model, "--input", rows, "--output", fifo, code=1, timeout=30)
check("is not a regular file" in out.stderr and "resume" in out.stderr, out.stderr)
only(pipes, ["fifo"])

# 2. A device (a private null device: char 1, 3).
devices = f"{work}/dev"
os.mkdir(devices)
null = f"{devices}/null"
try:
    os.mknod(null, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
except PermissionError:
    print("device_outputs: mknod is not permitted: the device checks are skipped", file=sys.stderr)
    sys.exit(77)


def still_device(what):
    check(stat.S_ISCHR(os.lstat(null).st_mode), f"{what} replaced the device node")
    only(devices, ["null"])  # no temporary, lock, progress or journal file beside it


for name, args in WRITERS.items():
    run(*args, null)
    still_device(name)
run("score", "--model", model, "--input", rows, "--mode", "generate", "--output", null, "--dump-generations", null)
still_device("score --dump-generations")
with open(null, "w") as device:  # commands that write to stdout only
    for args in (["eval", "--model", model, "--input", rows, "--shuffles", "1"], ["cost", "--model", model, "--input", rows],
                 ["score", "--model", model, "--input", rows]):
        run(*args, stdout=device)
        still_device(args[0] + " > device")
    with open(profiles) as text:
        out = subprocess.run([sift, "tokenize", "--tokenizer", f"{model}/tokenizer.json"], stdin=text, stdout=device, stderr=subprocess.PIPE,
                             env=env)
    check(out.returncode == 0, f"tokenize > device: {out.stderr}")
    still_device("tokenize > device")

# Refused, with one line naming the path, before any work; the node is left as it was.
def refused(args, want, code=1):
    out = run(*args, code=code)
    check(want in out.stderr and out.stderr.startswith("sift: error: ") and f"{null}" in out.stderr,
          f"sift {' '.join(args)}: {out.stderr}")
    still_device(args[0])


refused(["batch", "--model", model, "--input", rows, "--output", null], "is not a regular file (a device, FIFO")
refused(["batch", "--model", model, "--input", rows, "--output", null, "--resume"], "is not a regular file")
refused(["batch", "merge", "--output", null, f"{work}/shard.jsonl"], "is not a regular file")
refused(["calibrate", "--model", model, "--input", rows, "--out", null], "already exists; --out needs a new folder")
sift_json = open(f"{model}/sift.json").read()
refused(["calibrate", "--model", model, "--input", rows, "--in-place", "--out-dir", null],
        "exists and is not a folder; --out-dir")
check(open(f"{model}/sift.json").read() == sift_json, "a refused calibration wrote sift.json")
refused(["make-checkpoint", "--out", null, "--arch", "qwen3", "--preset", "tiny", "--vocab", "512"],
        "exists and is not a folder; --out")
refused(["synth", "--out", null, "--members", "5"], "exists and is not a folder; --out")
refused(["labels", "export", "--store", null], "is not a regular file; a label store is a SQLite database file")
refused(["labels", "get", "--store", null, "--member", "m1"], "is not a regular file")
refused(["label", "--model", model, "--catalog", f"{world}/catalog.jsonl", "--profiles", profiles, "--store", null],
        "is not a regular file")
if os.path.exists(os.path.join(os.path.dirname(os.path.abspath(sift)), "sift-train")):
    refused(["train", "--train", rows, "--config", f"{model}/config.json", "--tokenizer", f"{model}/tokenizer.json",
             "--out", null, "--steps", "1"], "exists and is not a folder; --out")
print("device_outputs: all checks passed", file=sys.stderr)
PY
