#!/usr/bin/env bash
# Offline packed generation (`sift score --mode generate`) with the batched decoder (the
# default: the requests of the rows in hand decoded together, one token per row per forward
# call) against one-row decoding (SIFT_GENERATE_DECODER=one-row: each request alone, one token
# per call), on the bundled labeler and held-out synthetic rows (`sift synth --seed 7`, the
# labeler's training seed; its test split). REPEATS interleaved runs of each; labels/s from the
# median wall time (loading included), the outputs compared byte for byte, and what a label
# costs: prompt (prefill) and decoded tokens per label, from the lines' usage. The batched
# decoder runs twice: at the default budget (--max-batch-tokens: the labeler's call size) and
# at 8192 tokens, four times the bundled labeler's default.
# Usage: bash bench/generate_decoders.sh [BUILD_DIR] [MEMBERS] [REPEATS] [THREADS]
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
members=${2:-2000}
repeats=${3:-3}
threads=${4:-2}
work=$build/bench/generate_decoders
mkdir -p "$work"
export OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-passive}
"$build/sift" synth --out "$work/world" --members "$members" --candidates 20 --seed 7 2>/dev/null
python3 - "$build/sift" "$work" "$repeats" "$threads" <<'PY'
import json, os, statistics, subprocess, sys, time
sift, work, repeats, threads = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
rows = f"{work}/world/test.jsonl"
n_rows = sum(1 for _ in open(rows))
labels = sum(len(json.loads(l)["items"]) for l in open(rows))
runs = {"one-row": ("one-row", []), "batched": ("batched", []),
        "batched, --max-batch-tokens 8192": ("batched", ["--max-batch-tokens", "8192"])}
seconds = {name: [] for name in runs}
outputs = {name: f"{work}/out{k}.jsonl" for k, name in enumerate(runs)}
for _ in range(repeats):
    for name, (decoder, flags) in runs.items():
        env = dict(os.environ, SIFT_GENERATE_DECODER=decoder)
        start = time.time()
        subprocess.run([sift, "--threads", threads, "score", "--model", "models/default-labeler", "--mode", "generate",
                        "--input", rows, "--output", outputs[name], *flags], env=env, check=True,
                       stderr=subprocess.DEVNULL)
        seconds[name].append(time.time() - start)
texts = [open(path, "rb").read() for path in outputs.values()]
same = all(text == texts[0] for text in texts)
lines = [json.loads(l) for l in open(outputs["batched"])]
prefill = sum(l["usage"]["prefill_tokens"] for l in lines)
generated = sum(l["usage"]["generated_tokens"] for l in lines)
unparsed = sum(len(l.get("unparsed", [])) for l in lines)
print(f"{n_rows} rows, {labels} labels (held-out synthetic, 20 candidates each), --threads {threads}; "
      f"load average {os.getloadavg()[0]:.1f}")
print(f"outputs identical across the three: {same}; per label: {prefill / labels:.1f} prompt tokens, {generated / labels:.2f} "
      f"decoded tokens; unparsed {unparsed} of {labels}")
print()
print("| decoder | seconds (runs) | median s | labels/s |")
print("|---|---|---|---|")
for decoder, s in seconds.items():
    print(f"| {decoder} | {', '.join(f'{x:.2f}' for x in s)} | {statistics.median(s):.2f} | "
          f"{labels / statistics.median(s):.0f} |")
print()
for name in list(runs)[1:]:
    print(f"{name} / one-row: {statistics.median(seconds['one-row']) / statistics.median(seconds[name]):.2f}x")
if not same:
    sys.exit("the decoders wrote different bytes")
PY
