#!/usr/bin/env python3
"""The scoring workload of bench/vs_llama_cpp.sh: one row, its token ids for llama.cpp.

    make_workload.py --sift build/sift --labeler DIR --out DIR [--query-tokens 744]
                     [--items 200] [--item-tokens 28] [--independent-items K] [--repeat R]
                     [--independent-repeat R] [--seed 1]

Writes into --out:
  rows.jsonl              the row {"id", "query", "items"} for `sift score`, R times (ids row1..rowR),
                          so a timing is long against its grain and the first call's warm-up
  rows_independent.jsonl  the row with its first K items (sift's independent mode is slow),
                          --independent-repeat times
  load.jsonl              one row of a one-word query and one one-word item: a `sift score` or
                          `sift batch` run on it is the model load and next to nothing else
  prompts.txt             the ids sift scores: line 1 the query part, then one line per item part
  meta.json               lengths and the YES/NO ids

The query and item texts are seeded random words; the word counts are chosen so that the
query part (template + text) has the token count closest to --query-tokens and each item
part the count closest to --item-tokens. The ids follow the scoring contract's prompt
encoding (docs/scoring-contract.md, sift.scoring/2): each part is the template with the
user's text in place of its placeholder, rendered first and tokenized as ONE text (special
tokens recognised; the random words hold no look-alike), BOS before the query part only;
everything is encoded by `sift tokenize` itself.
"""
import argparse
import json
import random
import subprocess
import sys
from pathlib import Path

# Profile-like vocabulary: skills, tools, verbs and connecting words.
WORDS = """
senior engineer led team built data pipelines with Apache Spark and Kafka on Kubernetes clusters
designed services in Python Java Go Rust TypeScript maintained PostgreSQL MySQL Redis databases
migrated monolith to microservices reduced latency by percent improved reliability monitoring
Grafana Prometheus Terraform Ansible Docker AWS Azure GCP certified architect mentored juniors
speaks fluent German French Spanish English wrote documentation reviewed code owned roadmap
machine learning models deployed inference scoring ranking recommendation search relevance
analytics dashboards SQL warehouse Snowflake BigQuery dbt Airflow scheduling batch streaming
frontend React Vue accessibility testing unit integration end continuous delivery pipelines
security compliance audits incident response on call rotation postmortems customer support
product managers stakeholders quarterly planning budget hiring interviews startup enterprise
""".split()
SKILLS = """
Apache Spark|Kubernetes|Terraform|PostgreSQL|German language|Machine learning|Incident response|
React|Data warehousing|AWS certification|Python programming|Team leadership|Kafka streaming|
Technical writing|Security audits|Go programming|Airflow orchestration|Accessibility testing
""".replace("\n", "").split("|")


def fail(message):
    sys.exit(f"make_workload.py: {message}")


def tokenize(sift, tokenizer, texts):
    """ids of each text, special tokens recognised, no BOS/EOS (sift's encode_template)."""
    lines = "".join(json.dumps({"text": t}) + "\n" for t in texts)
    out = subprocess.run([sift, "tokenize", "--tokenizer", tokenizer, "--no-special"], input=lines,
                         capture_output=True, text=True, check=False)
    if out.returncode != 0:
        fail(f"sift tokenize failed: {out.stderr.strip()}")
    results = [json.loads(line) for line in out.stdout.splitlines()]
    if len(results) != len(texts) or any("ids" not in r for r in results):
        fail(f"sift tokenize returned {len(results)} results for {len(texts)} texts, or an error: {out.stdout[:200]}")
    return [r["ids"] for r in results]


def bos_ids(sift, tokenizer):
    """The ids the tokenizer puts before a text (sift's prefix_special_ids): those of "" with specials."""
    out = subprocess.run([sift, "tokenize", "--tokenizer", tokenizer], input='{"text": ""}\n',
                         capture_output=True, text=True, check=False)
    if out.returncode != 0:
        fail(f"sift tokenize failed: {out.stderr.strip()}")
    return json.loads(out.stdout)["ids"]


def closest_prefix(word_lists, render, fixed_len, target, sift, tokenizer):
    """For each word list, the prefix (>= 1 word) whose rendered part's ids plus fixed_len come
    closest to target: (gap, the prefix text, the part's ids)."""
    texts, owners = [], []
    for w, words in enumerate(word_lists):
        for n in range(1, len(words) + 1):
            texts.append(render(" ".join(words[:n])))
            owners.append((w, n))
    best = {}
    for (w, n), ids in zip(owners, tokenize(sift, tokenizer, texts)):
        gap = abs(fixed_len + len(ids) - target)
        if w not in best or gap < best[w][0]:
            best[w] = (gap, " ".join(word_lists[w][:n]), ids)
    return [best[w] for w in range(len(word_lists))]


def renderer(template, placeholder):
    """text -> the template with text in place of its one placeholder (the contract's rendering)."""
    if template.count(placeholder) != 1:
        fail(f"sift.json: template must contain {placeholder} once: {template!r}")
    before, after = template.split(placeholder)
    return lambda text: before + text + after


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sift", required=True)
    parser.add_argument("--labeler", type=Path, required=True)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--query-tokens", type=int, default=744)
    parser.add_argument("--items", type=int, default=200)
    parser.add_argument("--item-tokens", type=int, default=28)
    parser.add_argument("--independent-items", type=int, default=20)
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--independent-repeat", type=int, default=1)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()

    artifact = json.loads((args.labeler / "sift.json").read_text())
    tokenizer = str(args.labeler / "tokenizer.json")
    rng = random.Random(args.seed)
    render_query = renderer(artifact["query_template"], "{query}")
    render_item = renderer(artifact["item_template"], "{item}")
    bos = bos_ids(args.sift, tokenizer)
    yes, no = tokenize(args.sift, tokenizer, [artifact["yes"], artifact["no"]])
    if len(yes) != 1 or len(no) != 1:
        fail(f"sift.json: yes/no must be single tokens, got {yes} and {no}")

    # Query: about 1.3 tokens per word, so 1.2x the target in words is enough to choose from.
    query_words = [rng.choice(WORDS) for _ in range(int(args.query_tokens * 1.2))]
    [(_, query_text, query_part_ids)] = closest_prefix([query_words], render_query, len(bos), args.query_tokens,
                                                       args.sift, tokenizer)
    query_ids = bos + query_part_ids

    item_words = [(rng.choice(SKILLS) + " " + " ".join(rng.choice(WORDS) for _ in range(args.item_tokens))).split()
                  for _ in range(args.items)]
    chosen = closest_prefix(item_words, render_item, 0, args.item_tokens, args.sift, tokenizer)
    item_texts = [text for _, text, _ in chosen]
    item_ids = [ids for _, _, ids in chosen]

    args.out.mkdir(parents=True, exist_ok=True)
    row = {"id": "row1", "query": query_text, "items": item_texts}
    (args.out / "rows.jsonl").write_text("".join(json.dumps(dict(row, id=f"row{r + 1}")) + "\n"
                                                 for r in range(args.repeat)))
    row_independent = dict(row, items=item_texts[:args.independent_items])
    (args.out / "rows_independent.jsonl").write_text("".join(json.dumps(dict(row_independent, id=f"row{r + 1}")) + "\n"
                                                             for r in range(args.independent_repeat)))
    (args.out / "load.jsonl").write_text(json.dumps({"id": "load", "query": WORDS[0], "items": [WORDS[1]]}) + "\n")
    with open(args.out / "prompts.txt", "w") as f:
        for ids in [query_ids] + item_ids:
            f.write(" ".join(map(str, ids)) + "\n")
    item_lens = [len(ids) for ids in item_ids]
    meta = {"query_tokens": len(query_ids), "items": len(item_ids), "item_tokens_mean": sum(item_lens) / len(item_lens),
            "item_tokens_min": min(item_lens), "item_tokens_max": max(item_lens),
            "prefill_tokens": len(query_ids) + sum(item_lens), "independent_items": len(row_independent["items"]),
            "repeat": args.repeat, "independent_repeat": args.independent_repeat,
            "yes": yes[0], "no": no[0]}
    (args.out / "meta.json").write_text(json.dumps(meta, indent=1) + "\n")
    print(json.dumps(meta))


if __name__ == "__main__":
    main()
