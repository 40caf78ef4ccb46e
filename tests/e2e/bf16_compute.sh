#!/usr/bin/env bash
# End to end: --weights bf16 and the switch that forces its fallback, on a tiny labeler written
# in BF16. SIFT_BF16_COMPUTE=off makes --weights bf16 multiply the BF16 weights in F32: the
# scores of --weights auto, bit for bit, and one warning on stderr that says why (however many
# matrices are loaded). Where the CPU has BF16 compute (AVX512_BF16), --weights bf16 without the
# switch scores otherwise (activations rounded to BF16), close to auto and without a warning,
# and SIFT_BF16_COMPUTE=avx512 (the AVX512_BF16 kernel even where AMX is there) as close; where
# it has none, the warning comes without the switch too. A value the switch does not know is an
# error that names it, before any scoring.
# Usage: bash bf16_compute.sh <sift-binary> <source-dir>
set -euo pipefail
SIFT=$1
SRC=$2
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

MODEL=$WORK/labeler
source "$SRC/tests/e2e/lib/tiny_labeler.sh"
make_tiny_labeler "$SIFT" "$SRC" "$MODEL" 9
"$SIFT" make-checkpoint --out "$WORK/bf16" --arch qwen3 --preset tiny --vocab 512 --seed 9 --dtype bf16 >/dev/null
mv "$WORK/bf16/model.safetensors" "$MODEL/model.safetensors"  # the same labeler, its weights in BF16
"$SIFT" selftest --model "$MODEL" --write >/dev/null 2>&1  # the probes of these weights

IN=$WORK/rows.jsonl
cat > "$IN" <<'JSON'
{"id": "m1", "query": "ten years of python and the cloud", "items": ["python", "cooking", "the cloud", "sql", "kubernetes"]}
{"id": "m2", "query": "nurse in the ICU, night shifts", "items": ["critical care", "welding", "triage", "ventilators"]}
JSON

HAS_BF16=0
if grep -qw avx512_bf16 /proc/cpuinfo && grep -qw avx512bw /proc/cpuinfo; then HAS_BF16=1; fi

python3 - "$SIFT" "$MODEL" "$IN" "$HAS_BF16" <<'PY'
import json, os, subprocess, sys
sift, model, rows, has_bf16 = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4] == "1"
WARNING = "BF16 weights are multiplied in F32"

def check(cond, what):
    if not cond:
        print("FAIL:", what, file=sys.stderr)
        sys.exit(1)

def score(weights, switch=None):
    env = dict(os.environ)
    env.pop("SIFT_BF16_COMPUTE", None)
    if switch is not None:
        env["SIFT_BF16_COMPUTE"] = switch
    out = subprocess.run([sift, "--threads", "2", "score", "--model", model, "--input", rows, "--weights", weights],
                         capture_output=True, text=True, env=env)
    return out

def scores(out):
    check(out.returncode == 0, f"sift score failed: {out.stderr}")
    return [json.loads(line)["scores"] for line in out.stdout.splitlines()]

def max_gap(a, b):
    return max(abs(x - y) for ra, rb in zip(a, b) for x, y in zip(ra, rb))

auto = score("auto")
auto_scores = scores(auto)
check(WARNING not in auto.stderr, f"auto warns: {auto.stderr}")

off = score("bf16", "off")
check(json.dumps(scores(off)) == json.dumps(auto_scores), f"SIFT_BF16_COMPUTE=off: {scores(off)} vs auto {auto_scores}")
check(off.stderr.count(WARNING) == 1 and "SIFT_BF16_COMPUTE=off" in off.stderr,
      f"SIFT_BF16_COMPUTE=off should say why, once: {off.stderr}")

bf16 = score("bf16")
if has_bf16:
    got = scores(bf16)
    check(WARNING not in bf16.stderr, f"BF16 compute warns: {bf16.stderr}")
    check(json.dumps(got) != json.dumps(auto_scores), "--weights bf16 gave auto's bits: no BF16 compute?")
    check(max_gap(got, auto_scores) < 0.02, f"BF16 compute far from F32: {got} vs {auto_scores}")
    avx512 = score("bf16", "avx512")
    check(WARNING not in avx512.stderr, f"SIFT_BF16_COMPUTE=avx512 warns: {avx512.stderr}")
    check(max_gap(scores(avx512), auto_scores) < 0.02, f"AVX512_BF16 kernel far from F32: {scores(avx512)}")
else:
    check(json.dumps(scores(bf16)) == json.dumps(auto_scores), "no BF16 compute here, yet bf16 differs from auto")
    check(bf16.stderr.count(WARNING) == 1 and "AVX512_BF16" in bf16.stderr, f"should say why, once: {bf16.stderr}")

bogus = score("bf16", "fast")
check(bogus.returncode != 0 and "SIFT_BF16_COMPUTE=fast" in bogus.stderr and not bogus.stdout,
      f"an unknown switch value: rc {bogus.returncode}, {bogus.stderr!r}, {bogus.stdout!r}")
print("bf16_compute: ok" + ("" if has_bf16 else " (no BF16 compute on this CPU: the fallback checked)"))
PY
