#!/usr/bin/env bash
# End to end: `--weights bf16` as docs/models.md's "Weights in memory" table promises it.
#  - An F32 checkpoint held as bf16 scores bit for bit like the same file with its weight
#    matrices rounded to BF16 (to nearest even) on disk, norms and biases left F32: the
#    rounded file is written here, independently of sift, and scored with bf16 (BF16 compute
#    where the CPU has it: the same weights, so the same bits) and, with the BF16 weights
#    multiplied in F32 (SIFT_BF16_COMPUTE=off, as on a CPU without AVX512_BF16), with auto
#    and f32.
#  - A BF16 checkpoint gives the f32 path's bits with auto, and with bf16 when BF16 weights
#    are multiplied in F32.
#  - sift batch --weights bf16 writes sift score --weights bf16's scores, and --resume
#    refuses a job whose --weights differs (bf16 against auto or f32; auto and f32, the same
#    bits, are one job).
# Usage: bash weights_bf16.sh <sift-binary> <source-dir>
set -euo pipefail
SIFT=$1
SRC=$2
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

source "$SRC/tests/e2e/lib/tiny_labeler.sh"
make_tiny_labeler "$SIFT" "$SRC" "$WORK/f32" 5
"$SIFT" make-checkpoint --out "$WORK/bf16" --arch qwen3 --preset tiny --vocab 512 --seed 6 --dtype bf16 >/dev/null
cp "$WORK/f32/tokenizer.json" "$WORK/f32/sift.json" "$WORK/bf16/"
"$SIFT" selftest --model "$WORK/bf16" --write >/dev/null 2>&1  # the probes of its own weights

OMP_NUM_THREADS=1 python3 - "$SIFT" "$WORK" <<'PY'
import json, os, shutil, struct, subprocess, sys
from array import array
sift, work = sys.argv[1:3]
f32_model, bf16_model, rounded = f"{work}/f32", f"{work}/bf16", f"{work}/rounded"

def check(cond, what):
    if not cond:
        print("FAIL:", what, file=sys.stderr)
        sys.exit(1)

def read_safetensors(path):
    data = open(path, "rb").read()
    (n,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8:8 + n])
    return header, data[8 + n:]

def bf16_bytes(f32_bytes):
    """Each F32 value rounded to BF16, to nearest with ties to even, as 2 little-endian bytes
    (finite weights only: the checkpoint holds no NaN)."""
    words = array("I", f32_bytes)
    out = array("H", ((w + 0x7FFF + ((w >> 16) & 1)) >> 16 for w in words))
    return out.tobytes()

# The F32 checkpoint with every matrix (2-D tensor) rounded to BF16 and every vector kept.
header, data = read_safetensors(f"{f32_model}/model.safetensors")
tensors, blob = {}, bytearray()
for name, info in sorted(header.items()):
    if name == "__metadata__":
        continue
    check(info["dtype"] == "F32", f"{name}: {info['dtype']}")
    begin, end = info["data_offsets"]
    raw = data[begin:end]
    dtype = "F32"
    if len(info["shape"]) == 2:
        raw, dtype = bf16_bytes(raw), "BF16"
    tensors[name] = {"dtype": dtype, "shape": info["shape"], "data_offsets": [len(blob), len(blob) + len(raw)]}
    blob += raw
check(sum(t["dtype"] == "BF16" for t in tensors.values()) >= 7, f"matrices rounded: {tensors}")
text = json.dumps(tensors).encode()
text += b" " * (-len(text) % 8)
os.mkdir(rounded)
with open(f"{rounded}/model.safetensors", "wb") as f:
    f.write(struct.pack("<Q", len(text)) + text + bytes(blob))
for name in ("config.json", "tokenizer.json", "sift.json"):
    shutil.copy(f"{f32_model}/{name}", rounded)
# Other weights than the probes of the copied sift.json were measured on: its own probes.
subprocess.run([sift, "selftest", "--model", rounded, "--write"], check=True, capture_output=True)

rows = [{"id": i, "query": q, "items": items} for i, (q, items) in enumerate([
    ("ten years of python and go", ["Python", "welding", "Go", "team lead"]),
    ("intensive care nurse, night shifts", ["nursing", "ACLS", "cooking"]),
    ("data engineer: spark, kafka, sql", ["SQL", "Kafka", "Spark", "baking", "French"])])]
rows_path = f"{work}/rows.jsonl"
with open(rows_path, "w") as f:
    f.writelines(json.dumps(r) + "\n" for r in rows)

IN_F32 = dict(os.environ, SIFT_BF16_COMPUTE="off")  # BF16 weights multiplied in F32

def scores(model, *weights, env=None):
    out = subprocess.run([sift, "score", "--model", model, "--input", rows_path, "-q", *weights],
                         capture_output=True, text=True, env=env)
    check(out.returncode == 0, f"sift score {model} {weights}: {out.stderr}")
    return [json.loads(line)["scores"] for line in out.stdout.splitlines()]

# 1. F32 held as bf16 = the rounded file: under bf16 (whatever multiplies it), and with the
#    BF16 weights multiplied in F32, in auto (kept BF16) and in f32 (widened).
held_bf16 = scores(f32_model, "--weights", "bf16")
check(held_bf16 == scores(rounded, "--weights", "bf16"), "F32 --weights bf16 != the file rounded to BF16 (bf16)")
held_bf16_f32 = scores(f32_model, "--weights", "bf16", env=IN_F32)
check(held_bf16_f32 == scores(rounded), "F32 --weights bf16 multiplied in F32 != the file rounded to BF16 (auto)")
check(held_bf16_f32 == scores(rounded, "--weights", "f32"),
      "F32 --weights bf16 multiplied in F32 != the file rounded to BF16 (f32)")
check(held_bf16_f32 != scores(f32_model), "rounding the weights changed no score: nothing was tested")

# 2. A BF16 checkpoint: auto, and bf16 multiplied in F32, give the f32 path's bits.
widened = scores(bf16_model, "--weights", "f32")
check(scores(bf16_model, "--weights", "bf16", env=IN_F32) == widened,
      "BF16 checkpoint: --weights bf16 multiplied in F32 != f32")
check(scores(bf16_model) == widened, "BF16 checkpoint: auto != f32")

# 3. sift batch: bf16's scores, and --resume refuses a job of other weights.
def batch(output, *args):
    return subprocess.run([sift, "batch", "--model", f32_model, "--input", rows_path, "--output", output, "--quiet",
                           *args], capture_output=True, text=True)
job = f"{work}/bf16-job.jsonl"
out = batch(job, "--weights", "bf16")
check(out.returncode == 0, f"batch --weights bf16: {out.stderr}")
check([json.loads(line)["scores"] for line in open(job)] == held_bf16, "batch --weights bf16 != score --weights bf16")
job_bytes = open(job, "rb").read()
for other, needle in ((["--weights", "f32"], 'weights is absent in this run, "bf16" in the job'),
                      ([], 'weights is absent in this run, "bf16" in the job')):
    out = batch(job, "--resume", *other)
    check(out.returncode == 1 and "not the job being resumed" in out.stderr and needle in out.stderr,
          f"--resume {other} of a bf16 job: {out.returncode} {out.stderr}")
check(open(job, "rb").read() == job_bytes, "a refused --resume touched the output")
plain = f"{work}/auto-job.jsonl"
check(batch(plain).returncode == 0, "batch, auto")
out = batch(plain, "--resume", "--weights", "bf16")
check(out.returncode == 1 and 'weights is "bf16" in this run, absent in the job' in out.stderr,
      f"--resume --weights bf16 of an auto job: {out.stderr}")
out = batch(plain, "--resume", "--weights", "f32")
summary = json.loads(out.stdout) if out.returncode == 0 else {}
check(summary.get("resumed") and summary["rows"] == 0 and summary["output_rows"] == len(rows),
      f"auto and f32 are one job: {out.stdout} {out.stderr}")
PY
echo "weights_bf16: ok"
