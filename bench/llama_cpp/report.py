#!/usr/bin/env python3
"""Summaries for bench/vs_llama_cpp.sh.

    report.py parity PARITY.jsonl
        Lines in fives: {"ids"}, then the {"logits": [yes, no]} of sift (F32 weights),
        llama.cpp F32, llama.cpp Q8_0 and sift q8. Exit status 1 unless every F32 pair agrees
        within 1e-4 of the logit scale: max |sift - llama| <= 1e-4 * max(1, max |sift|).
    report.py table RESULTS.jsonl META.json --config config.json --threads T
        The markdown table: labels/s (median over repetitions) per configuration, sift mis /
        each, agreement of the scores with sift mis (F32), sift's peak RSS per weight type,
        the sgemm rate of the run, and the ratios the targets name.
"""
import argparse
import json
import os
import statistics
import sys

F32_TOLERANCE = 1e-4


def parity(path):
    lines = [json.loads(line) for line in open(path)]
    if not lines or len(lines) % 5:
        sys.exit(f"report.py: {path}: expected groups of 5 lines, got {len(lines)} lines")
    ok = True
    print("| prompt tokens | sift YES, NO | llama.cpp F32 YES, NO | F32 max rel. diff | llama.cpp Q8_0 max rel. diff "
          "| sift q8 max rel. diff |")
    print("|---|---|---|---|---|---|")
    for at in range(0, len(lines), 5):
        ids, sift, f32, q8, sift_q8 = (lines[at + k] for k in range(5))
        scale = max(1.0, max(abs(v) for v in sift["logits"]))
        rel = lambda other: max(abs(a - b) for a, b in zip(sift["logits"], other["logits"])) / scale
        ok &= rel(f32) <= F32_TOLERANCE
        fmt = lambda v: ", ".join(f"{x:.6f}" for x in v["logits"])
        print(f"| {len(ids['ids'])} | {fmt(sift)} | {fmt(f32)} | {rel(f32):.2e} | {rel(q8):.2e} | {rel(sift_q8):.2e} |")
    print(f"F32 parity (<= {F32_TOLERANCE:g} of the logit scale): {'ok' if ok else 'FAILED'}")
    return 0 if ok else 1


def read_scores(path):
    with open(path) as f:
        row = json.loads(f.readline())
    if "scores" not in row:
        sys.exit(f"report.py: {path}: no scores ({row})")
    return row["scores"]


def max_gap(a, b):
    return max(abs(x - y) for x, y in zip(a, b))


LLAMA_NAMES = {"mis": "seq-id MIS, unified KV", "prefix": "batched prefix cache"}


def table(results_path, meta_path, config_path, threads):
    records = [json.loads(line) for line in open(results_path)]
    meta = json.load(open(meta_path))
    config = json.load(open(config_path))
    reps = max(r["rep"] for r in records)

    def median(values):
        return statistics.median(values)

    sgemm = [r for r in records if r["engine"] == "sgemm"]
    sift = [r for r in records if r["engine"] == "sift"]
    llama = [r for r in records if r["engine"] == "llama.cpp"]
    # The model load of each weight type alone (a run on no rows): the weights' resident size.
    load_rss = {w: median([r["peak_rss_kb"] for r in sift if r["config"] == f"load-{w}"]) / 2**20
                for w in ("f32", "bf16", "q8")}

    # sift configurations: tag -> (name, weights as shown, items per run); the rate is items over
    # the scoring time sift reports (after its model load).
    per_run = {"mis": meta["items"] * meta["repeat"], "independent": meta["independent_items"] * meta["independent_repeat"]}
    sift_configs = {"mis": ("mis", "f32", per_run["mis"]),
                    "mis-bf16": ("mis, weights BF16 in memory", "bf16", per_run["mis"]),
                    "prefix": ("prefix", "f32", per_run["mis"]),
                    "independent": (f"independent (first {meta['independent_items']} items)", "f32",
                                    per_run["independent"]),
                    "mis-q8": ("mis", "q8", per_run["mis"])}

    def sift_row(tag):
        name, weights, items = sift_configs[tag]
        runs = [r for r in sift if r["config"] == tag]
        rate = median([items / r["seconds"] for r in runs])
        return ("sift", name, weights, rate, read_scores(runs[-1]["output"]), median([r["peak_rss_kb"] for r in runs]))

    def llama_rows(weights):
        rows = []
        configs = sorted({r["config"] for r in llama if r["weights"] == weights}, key=lambda c: (c.split()[0] != "mis", c))
        for cfg in configs:
            runs = [r for r in llama if r["config"] == cfg and r["weights"] == weights]
            layout, flash = cfg.split()
            name = f"{LLAMA_NAMES[layout]}" + (f" ({runs[-1]['run']['batch']} items/call)" if layout == "prefix" else "")
            name += f", flash attn {flash[3:]}"
            rows.append(("llama.cpp", name, weights, median([r["run"]["labels_per_s"] for r in runs]),
                         runs[-1]["run"]["scores"], None))
        return rows

    # rows: (engine, configuration, weights, labels/s, scores of the last repetition, peak RSS KiB)
    rows = [sift_row(tag) for tag in ("mis", "mis-bf16", "prefix", "independent")] + llama_rows("f32")
    rows += [sift_row("mis-q8")] + llama_rows("q8_0")
    sift_mis = rows[0]
    sift_rate = {r[2]: r[3] for r in rows if r[0] == "sift" and r[1].startswith("mis")}
    mis_rss = {r[2]: r[5] / 2**20 for r in rows if r[0] == "sift" and r[1].startswith("mis")}

    shape = (f"hidden {config['hidden_size']}, {config['num_hidden_layers']} layers, "
             f"{config['num_attention_heads']}/{config['num_key_value_heads']} heads, head_dim {config.get('head_dim')}, "
             f"intermediate {config['intermediate_size']}, vocab {config['vocab_size']}")
    print(f"Workload: 1 row, query {meta['query_tokens']} tokens, {meta['items']} items of "
          f"{meta['item_tokens_mean']:.1f} tokens ({meta['item_tokens_min']}-{meta['item_tokens_max']}); "
          f"{meta['prefill_tokens']} prefill tokens under MIS; each run scores it {meta['repeat']} times.")
    print(f"Model: random Qwen3, {shape}. {threads} threads, median of {reps}.")
    print(f"OpenBLAS sgemm 2048^3 in this run: {median([r['openblas_gflops'] for r in sgemm]):.1f} GFLOP/s "
          f"(sift gemm {median([r['sift_gemm_gflops'] for r in sgemm]):.1f}, sift q8 gemm "
          f"{median([r['sift_q8_gemm_gflops'] for r in sgemm]):.1f}); load average (1 min) at each repetition's "
          f"start: {', '.join(str(r['load_average']) for r in sgemm)} on {os.cpu_count()} CPUs. sift's rates: items over "
          f"the scoring time it reports, after its model load.")
    print()
    print("| engine | configuration | weights | labels/s | sift mis (f32) / this | max abs. diff of P(yes) vs sift mis (f32) |")
    print("|---|---|---|---|---|---|")
    for engine, name, weights, rate, scores, _ in rows:
        gap = max_gap(scores, sift_mis[4][:len(scores)])
        print(f"| {engine} | {name} | {weights} | {rate:.2f} | {sift_mis[3] / rate:.2f}x | {gap:.1e} |")
    print()
    print("sift peak RSS, GiB (after load / scoring the workload): " +
          "; ".join(f"{w} {load_rss[w]:.2f} / {mis_rss[w]:.2f}" for w in ("f32", "bf16", "q8")))
    print()
    for weights, sift_weights in (("f32", "f32"), ("q8_0", "q8")):
        best = max((r for r in rows if r[0] == "llama.cpp" and r[2] == weights), key=lambda r: r[3])
        print(f"sift mis ({sift_weights}) / best llama.cpp {weights.upper()} ({best[1]}): "
              f"**{sift_rate[sift_weights] / best[3]:.2f}x**")
    print(f"sift mis, weights BF16 / F32 in memory: labels/s **{sift_rate['bf16'] / sift_rate['f32']:.2f}x**, "
          f"peak RSS after load **{load_rss['bf16'] / load_rss['f32']:.2f}x**, scoring **{mis_rss['bf16'] / mis_rss['f32']:.2f}x**")
    print(f"sift mis, weights q8 / F32: labels/s **{sift_rate['q8'] / sift_rate['f32']:.2f}x**, "
          f"peak RSS after load **{load_rss['q8'] / load_rss['f32']:.2f}x**")
    return 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("parity")
    p.add_argument("path")
    t = sub.add_parser("table")
    t.add_argument("results")
    t.add_argument("meta")
    t.add_argument("--config", required=True)
    t.add_argument("--threads", type=int, required=True)
    args = parser.parse_args()
    if args.command == "parity":
        return parity(args.path)
    return table(args.results, args.meta, args.config, args.threads)


if __name__ == "__main__":
    sys.exit(main())
