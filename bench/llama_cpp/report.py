#!/usr/bin/env python3
"""Summaries for bench/vs_llama_cpp.sh.

    report.py parity PARITY.jsonl
        Lines in sevens: {"ids"}, then the {"logits": [yes, no]} of sift (F32 weights),
        llama.cpp F32, llama.cpp Q8_0, sift q8, llama.cpp BF16 and sift BF16 compute. Exit
        status 1 unless every F32 pair agrees within 1e-4 of the logit scale:
        max |sift - llama| <= 1e-4 * max(1, max |sift|).
    report.py table RESULTS.jsonl META.json --config config.json --threads T
        The markdown table: labels/s (median over repetitions) per configuration, sift mis /
        each, GFLOP/s and its share of the FMA peak and of its own instruction's peak, the share
        of sift's scoring time outside the narrow GEMMs, agreement of the scores with sift mis
        (F32), sift's peak RSS per weight type, the yardsticks of the run, and the ratios the
        targets name. META.json's folder holds prompts.txt (the query's ids, then each item's).
"""
import argparse
import json
import os
import statistics
import sys

F32_TOLERANCE = 1e-4
PARITY_COLUMNS = ("sift", "llama.cpp F32", "llama.cpp Q8_0", "sift q8", "llama.cpp BF16", "sift BF16 compute")


def parity(path):
    lines = [json.loads(line) for line in open(path)]
    group = 1 + len(PARITY_COLUMNS)
    if not lines or len(lines) % group:
        sys.exit(f"report.py: {path}: expected groups of {group} lines, got {len(lines)} lines")
    ok = True
    print("| prompt tokens | sift YES, NO | llama.cpp F32 YES, NO | F32 max rel. diff | " +
          " | ".join(f"{name} max rel. diff" for name in PARITY_COLUMNS[2:]) + " |")
    print("|---" * (3 + len(PARITY_COLUMNS) - 2) + "|---|")
    for at in range(0, len(lines), group):
        ids, sift, f32, *others = lines[at:at + group]
        scale = max(1.0, max(abs(v) for v in sift["logits"]))
        rel = lambda other: max(abs(a - b) for a, b in zip(sift["logits"], other["logits"])) / scale
        ok &= rel(f32) <= F32_TOLERANCE
        fmt = lambda v: ", ".join(f"{x:.6f}" for x in v["logits"])
        print(f"| {len(ids['ids'])} | {fmt(sift)} | {fmt(f32)} | {rel(f32):.2e} | " +
              " | ".join(f"{rel(other):.2e}" for other in others) + " |")
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


def label_agreement(a, b, threshold=0.5):
    return sum((x >= threshold) == (y >= threshold) for x, y in zip(a, b)) / len(a)


def workload_flops(config, query_len, item_lens):
    """The arithmetic of one row as sift mis does it: every layer's projections over all the
    row's tokens, except the last layer's output projection and MLP, which only the logit rows
    (each item's last token) need; attention over the keys each token sees (its query's up to
    itself; an item token the whole query and its item up to itself), 4 head_dim FLOPs per key
    and query head; 2 answer logits per item. The same count for every configuration, so
    GFLOP/s compares their rates, not their amounts of work."""
    hidden, layers = config["hidden_size"], config["num_hidden_layers"]
    heads, kv_heads = config["num_attention_heads"], config["num_key_value_heads"]
    head_dim = config.get("head_dim") or hidden // heads
    q_dim, kv_dim = heads * head_dim, kv_heads * head_dim
    qkv, out, mlp = hidden * (q_dim + 2 * kv_dim), q_dim * hidden, 3 * hidden * config["intermediate_size"]
    tokens, rows = query_len + sum(item_lens), len(item_lens)
    keys_all = query_len * (query_len + 1) // 2 + sum(n * query_len + n * (n + 1) // 2 for n in item_lens)
    keys_last = sum(query_len + n for n in item_lens)
    attention = 4 * head_dim * heads
    flops = (layers - 1) * (2 * tokens * (qkv + out + mlp) + attention * keys_all)
    flops += 2 * tokens * qkv + 2 * rows * (out + mlp) + attention * keys_last
    return flops + 2 * hidden * 2 * rows


LLAMA_NAMES = {"mis": "seq-id MIS, unified KV", "prefix": "batched prefix cache"}
WEIGHT_NAMES = {"f32": "F32", "bf16": "BF16", "q8_0": "Q8_0"}


def table(results_path, meta_path, config_path, threads):
    records = [json.loads(line) for line in open(results_path)]
    meta = json.load(open(meta_path))
    config = json.load(open(config_path))
    prompts = [line.split() for line in open(os.path.join(os.path.dirname(meta_path), "prompts.txt"))]
    reps = max(r["rep"] for r in records)

    def median(values):
        return statistics.median(values)

    yardsticks = [r for r in records if r["engine"] == "sgemm"]
    sift = [r for r in records if r["engine"] == "sift"]
    llama = [r for r in records if r["engine"] == "llama.cpp"]
    peaks = {kind: median([r["peak_gflops"][kind] for r in yardsticks]) for kind in yardsticks[0]["peak_gflops"]}
    fma_peak = max(peaks.get("fma-zmm", 0), peaks["fma-ymm"])
    fma_kind = "fma-zmm" if "fma-zmm" in peaks else "fma-ymm"
    vnni_kind = next((k for k in ("vnni-zmm", "vnni-ymm") if k in peaks), None)
    flops_per_label = workload_flops(config, len(prompts[0]), [len(p) for p in prompts[1:]]) / meta["items"]
    # The model load of each weight type alone (`sift logits` on one token): the weights' resident size.
    load_rss = {w: median([r["peak_rss_kb"] for r in sift if r["config"] == f"load-{w}"]) / 2**20
                for w in ("f32", "bf16", "q8")}

    # sift configurations: tag -> (name, weights as shown, items per run); the rate is items over
    # the scoring time sift reports (after its model load).
    per_run = {"mis": meta["items"] * meta["repeat"], "independent": meta["independent_items"] * meta["independent_repeat"]}
    kernel = next((r["bf16_kernel"] for r in sift if r["config"] == "mis-bf16-compute"), "?")
    sift_configs = {"mis": ("mis", "f32", per_run["mis"]),
                    "mis-bf16": ("mis, BF16 weights multiplied in F32", "bf16", per_run["mis"]),
                    "mis-bf16-compute": (f"mis, BF16 compute ({kernel})", "bf16", per_run["mis"]),
                    "prefix": ("prefix", "f32", per_run["mis"]),
                    "independent": (f"independent (first {meta['independent_items']} items)", "f32",
                                    per_run["independent"]),
                    "mis-q8": ("mis", "q8", per_run["mis"])}

    def sift_row(tag):
        name, weights, items = sift_configs[tag]
        runs = [r for r in sift if r["config"] == tag]
        rate = median([items / r["seconds"] for r in runs])
        return ("sift", name, weights, rate, read_scores(runs[-1]["output"]), median([r["peak_rss_kb"] for r in runs]),
                sift_cpu_rate(tag))

    def sift_cpu_rate(tag):  # labels per CPU-second of all threads (the scoring's CPU time, as sift reports it)
        runs = [r for r in sift if r["config"] == tag and r.get("cpu_seconds")]
        return median([sift_configs[tag][2] / r["cpu_seconds"] for r in runs]) if runs else None

    def llama_cpu_rate(runs):  # the same, as llama_score reports it
        runs = [r["run"] for r in runs if r["run"].get("cpu_seconds")]
        return median([r["items"] * r["repeat"] / r["cpu_seconds"] for r in runs]) if runs else None

    def llama_rows(weights):
        rows = []
        configs = sorted({r["config"] for r in llama if r["weights"] == weights}, key=lambda c: (c.split()[0] != "mis", c))
        for cfg in configs:
            runs = [r for r in llama if r["config"] == cfg and r["weights"] == weights]
            layout, flash, kv = cfg.split()
            name = f"{LLAMA_NAMES[layout]}" + (f" ({runs[-1]['run']['batch']} items/call)" if layout == "prefix" else "")
            name += f", flash attn {flash[3:]}, {kv[3:].upper()} KV"
            rows.append(("llama.cpp", name, weights, median([r["run"]["labels_per_s"] for r in runs]),
                         runs[-1]["run"]["scores"], None, llama_cpu_rate(runs)))
        return rows

    # The instruction whose peak bounds a row: F32 products (and BF16 weights widened to F32) run
    # vfmadd231ps, BF16 compute vdpbf16ps (or AMX's tdpbf16ps), Q8 vpdpbusd; llama.cpp's rows
    # are held to the same instruction as sift's on the same weights.
    def instruction(engine, name, weights):
        if weights == "bf16" and (engine == "llama.cpp" or "BF16 compute" in name):
            return "amx-bf16" if engine == "sift" and kernel == "amx" else "bf16-zmm"
        if weights in ("q8", "q8_0"):
            return vnni_kind
        return fma_kind

    # rows: (engine, configuration, weights, labels/s, scores of the last repetition, peak RSS KiB,
    # labels per CPU-second of all threads or None)
    # A run cut short has no record of some configurations: those rows are left out (sift mis
    # in F32, BF16 compute and q8, the ratios' numerators, must be there).
    measured = {r["config"] for r in sift}
    sift_rows = lambda *tags: [sift_row(tag) for tag in tags if tag in measured]
    f32_rows = sift_rows("mis", "prefix", "independent") + llama_rows("f32")
    bf16_rows = sift_rows("mis-bf16", "mis-bf16-compute") + llama_rows("bf16")
    q8_rows = sift_rows("mis-q8") + llama_rows("q8_0")
    rows = f32_rows + bf16_rows + q8_rows
    sift_mis = rows[0]
    by_name = {(r[0], r[1], r[2]): r for r in rows}
    mis_rss = {r[2]: r[5] / 2**20 for r in rows if r[0] == "sift" and r[1] in ("mis", sift_configs["mis-bf16"][0])}

    shape = (f"hidden {config['hidden_size']}, {config['num_hidden_layers']} layers, "
             f"{config['num_attention_heads']}/{config['num_key_value_heads']} heads, head_dim {config.get('head_dim')}, "
             f"intermediate {config['intermediate_size']}, vocab {config['vocab_size']}")
    print(f"Workload: 1 row, query {meta['query_tokens']} tokens, {meta['items']} items of "
          f"{meta['item_tokens_mean']:.1f} tokens ({meta['item_tokens_min']}-{meta['item_tokens_max']}); "
          f"{meta['prefill_tokens']} prefill tokens under MIS; each run scores it {meta['repeat']} times; "
          f"{flops_per_label * meta['items'] / 1e9:.1f} GFLOP a row as sift mis computes it.")
    print(f"Model: random Qwen3, {shape}. {threads} threads, median of {reps}.")
    bf16_gemm = [r["sift_bf16_gemm_gflops"] for r in yardsticks if r.get("sift_bf16_gemm_gflops")]
    print(f"Yardsticks of this run ({threads} threads): FMA peak (independent chains) " +
          ", ".join(f"{kind} {rate:.1f}" for kind, rate in peaks.items()) +
          f" GFLOP/s; OpenBLAS sgemm 2048^3 {median([r['openblas_gflops'] for r in yardsticks]):.1f} GFLOP/s "
          f"(sift gemm {median([r['sift_gemm_gflops'] for r in yardsticks]):.1f}" +
          (f", BF16 compute {median(bf16_gemm):.1f}" if bf16_gemm else "") +
          f", q8 {median([r['sift_q8_gemm_gflops'] for r in yardsticks]):.1f}); load average (1 min) at each "
          f"repetition's start: {', '.join(str(r['load_average']) for r in yardsticks)} on {os.cpu_count()} CPUs. "
          f"sift's rates: items over the scoring time it reports, after its model load. GFLOP/s: the row's "
          f"arithmetic as sift mis does it times the rate, for every configuration; % of the FMA peak "
          f"({fma_peak:.1f} GFLOP/s).")
    print()
    print("| engine | configuration | weights | labels/s | sift mis (f32) / this | GFLOP/s | % of FMA peak "
          "| % of its instruction's peak | labels per CPU-second | sift mis (f32) / this, by CPU time "
          "| max abs. diff of P(yes) vs sift mis (f32) |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for engine, name, weights, rate, scores, _, cpu_rate in rows:
        gap = max_gap(scores, sift_mis[4][:len(scores)])
        gflops = rate * flops_per_label / 1e9
        by_cpu = (f"{cpu_rate:.2f} | {sift_mis[6] / cpu_rate:.2f}x" if cpu_rate and sift_mis[6] else "- | -")
        kind = instruction(engine, name, weights)
        own = f"{100 * gflops / peaks[kind]:.0f}% ({kind})" if kind in peaks else "-"
        print(f"| {engine} | {name} | {weights} | {rate:.2f} | {sift_mis[3] / rate:.2f}x | {gflops:.1f} "
              f"| {100 * gflops / fma_peak:.0f}% | {own} | {by_cpu} | {gap:.1e} |")
    print()
    print("sift peak RSS, GiB (after load / scoring the workload): " +
          "; ".join(f"{w} {load_rss[w]:.2f} / {mis_rss[w]:.2f}" for w in ("f32", "bf16", "q8") if w in mis_rss))
    print()
    sift_best = {"f32": sift_mis, "bf16": by_name[("sift", sift_configs["mis-bf16-compute"][0], "bf16")],
                 "q8_0": by_name[("sift", "mis", "q8")]}
    for weights, group in (("f32", f32_rows), ("bf16", bf16_rows), ("q8_0", q8_rows)):
        best = max((r for r in group if r[0] == "llama.cpp"), key=lambda r: r[3])
        print(f"sift {sift_best[weights][1]} ({sift_best[weights][2]}) / best llama.cpp {WEIGHT_NAMES[weights]} "
              f"({best[1]}): **{sift_best[weights][3] / best[3]:.2f}x**")
    for tag in ("mis-bf16-compute", "mis-bf16", "mis-q8"):
        row = by_name[("sift", *sift_configs[tag][:2])]
        print(f"sift {row[1]} ({row[2]}) / sift mis (f32): labels/s **{row[3] / sift_mis[3]:.2f}x**")
    # The same ratios by CPU time (labels per CPU-second of all threads), which other load on a
    # shared machine does not dilute; llama.cpp's best by that rate.
    if all(r[6] for r in rows):
        for weights, group in (("f32", f32_rows), ("bf16", bf16_rows), ("q8_0", q8_rows)):
            best = max((r for r in group if r[0] == "llama.cpp"), key=lambda r: r[6])
            print(f"By CPU time: sift {sift_best[weights][1]} ({sift_best[weights][2]}) / best llama.cpp "
                  f"{WEIGHT_NAMES[weights]} ({best[1]}): **{sift_best[weights][6] / best[6]:.2f}x**")
        for tag in ("mis-bf16-compute", "mis-q8"):
            row = by_name[("sift", *sift_configs[tag][:2])]
            print(f"By CPU time: sift {row[1]} ({row[2]}) / sift mis (f32): **{row[6] / sift_mis[6]:.2f}x**")
    print(f"sift mis (f32): {sift_mis[3] * flops_per_label / 1e9:.1f} GFLOP/s, "
          f"**{100 * sift_mis[3] * flops_per_label / 1e9 / fma_peak:.0f}%** of the FMA peak")
    # Each sift configuration against its own instruction's peak, and the share of its scoring
    # time outside the narrow GEMMs: bench_prefill timed the forward pass's projections alone at
    # the row's token count (one row per forward call here), so the GEMMs of a run take `repeat`
    # times that; the rest is attention, norms, RoPE, activations.
    gemm_runs = [r for r in records if r["engine"] == "gemms"]
    for tag, weights in (("mis", "f32"), ("mis-bf16-compute", "bf16"), ("mis-q8", "q8")):
        if tag not in measured:
            continue
        row = by_name[("sift", *sift_configs[tag][:2])]
        gflops = row[3] * flops_per_label / 1e9
        kind = instruction("sift", row[1], row[2])
        line = f"sift {row[1]} ({row[2]}): {gflops:.1f} GFLOP/s"
        if kind in peaks:
            line += f", **{100 * gflops / peaks[kind]:.0f}%** of its instruction's peak ({kind} {peaks[kind]:.1f})"
        gemm_s = [r["gemm_seconds"] for r in gemm_runs if r["weights"] == weights]
        seconds = [r["seconds"] for r in sift if r["config"] == tag]
        if gemm_s and seconds:
            outside = 1 - meta["repeat"] * median(gemm_s) / median(seconds)
            prefill = [r["prefill_seconds"] for r in gemm_runs if r["weights"] == weights]
            line += (f"; outside the narrow GEMMs: **{100 * outside:.0f}%** of the scoring time "
                     f"(GEMMs {median(gemm_s):.3f} s per row; a causal prefill of the row "
                     f"{100 * (1 - median(gemm_s) / median(prefill)):.0f}% outside)")
        print(line)
    # By CPU time, which other load on a shared machine does not dilute: the work per CPU-second
    # of sift's threads against the FMA peak per CPU-second of one thread.
    core_peaks = [r["peak_cpu_gflops"] for r in yardsticks if r.get("peak_cpu_gflops")]
    if core_peaks:
        core_peak = median([max(p.get("fma-zmm", 0), p["fma-ymm"]) for p in core_peaks])
        shares = []
        for tag in ("mis", "mis-bf16-compute", "mis-q8", "prefix"):
            cpu_rate = sift_cpu_rate(tag)
            if cpu_rate:
                gflops = cpu_rate * flops_per_label / 1e9
                kind = instruction("sift", *sift_configs[tag][:2])
                own = [p[kind] for p in core_peaks if kind in p]
                shares.append(f"{sift_configs[tag][0]} ({sift_configs[tag][1]}) {gflops:.1f} GFLOP per CPU-second, "
                              f"{100 * gflops / core_peak:.0f}%" +
                              (f" ({100 * gflops / median(own):.0f}% of {kind}'s {median(own):.1f})" if own else ""))
        print(f"By CPU time (one core's FMA peak {core_peak:.1f} GFLOP per CPU-second): " + "; ".join(shares))
    # BF16 against F32 within each engine: sift's BF16 compute against sift's F32 scores;
    # llama.cpp's BF16 GGUF against its F32 GGUF, configuration by configuration.
    bf16c = sift_best["bf16"][4]
    print(f"BF16 vs F32 scores, this random checkpoint ({len(bf16c)} items): sift BF16 compute max |dP| "
          f"{max_gap(bf16c, sift_mis[4]):.1e}, labels equal {100 * label_agreement(bf16c, sift_mis[4]):.1f}%; "
          "llama.cpp BF16 vs its F32, per configuration: " +
          "; ".join(f"{r[1]} {max_gap(r[4], f[4]):.1e} ({100 * label_agreement(r[4], f[4]):.1f}%)"
                    for r in bf16_rows if r[0] == "llama.cpp"
                    for f in f32_rows if f[0] == "llama.cpp" and f[1] == r[1]))
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
