"""bench/paper/REPORT.md and its plots from one run of bench/paper/study.py (study.json).

The paper's numbers sit in their own column (PAPER below, from its §6); sift's columns hold
only what this run measured. The sentences that compare the two, and the verdicts (the validity
check, the targets), are computed from the numbers, so a rerun that comes out differently says
so. write() returns the validity check's failures (study.py exits non-zero on them).
"""
import collections
import json
import math
import os
import statistics
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import findings  # noqa: E402  (bench/paper/findings.py)
import stats  # noqa: E402  (bench/paper/stats.py)

# The paper's figures (§6.2-6.5), quoted beside sift's, never mixed into sift's columns.
PAPER = {
    "agreement_small": "86.3% (scoring, 45K pairs)",
    "agreement_large": "88.0% scoring / 87.8% generation (443K pairs)",
    "data_ratio": 4.7,
    "inconsistency_scoring": "<= 0.01%",
    "inconsistency_generate": "0.86% (largest size)",
    "offline": "6.3K vs 5.1K labels/s per GPU: 1.24x",
    "serving": "1.9x at p99 <= 1 s",
    "serving_n200": "~4.8K labels/s per GPU at N = 200; generation 2.5K",
    "split": "two of 100: 4.1K labels/s, -14%",
    "rq4": "0.6B labeler ~10.9K labels/s serving, quality unreported; the smallest quality-preserving scorer left open",
}
VALIDITY_POINTS = findings.VALIDITY_POINTS
TARGET_POINTS = findings.TARGET_POINTS
SCORING_TARGET = 0.90
PLOT_STYLE = "set terminal pngcairo size 900,520 noenhanced font 'sans,11'\nset grid\nset key top left\n"


def pct(x, digits=2):
    return "-" if x is None else f"{100 * x:.{digits}f}%"


def points(x):
    return f"{100 * x:+.2f}"


def rate(x):
    return "-" if x is None else f"{x:,.0f}"


def red(text):
    """Red in GitHub's Markdown (inline math), e.g. a labeler that failed the validity check."""
    return f"${{\\color{{red}}\\text{{{text}}}}}$"


def mean_pm(values, digits=2):
    m, h = stats.mean_ci(values)
    return f"{100 * m:.{digits}f}%" + (f" ± {100 * h:.{digits}f}" if len(values) > 1 else "")


def command(res):
    """The run.sh options that made this run."""
    cfg = res["config"]
    return "".join([" --quick" if res["quick"] else "",
                    f" --seeds {len(cfg['seeds'])}" if len(cfg["seeds"]) < 3 else "",
                    " --rq1-only" if res.get("rq1_only") else ""])


def left_out(res):
    """What the protocol (the full run) holds that this run did not run; empty for the full run."""
    missing = []
    if res["quick"]:
        missing.append("the full sizes (`--quick` ran smaller ones: a weaker base, fewer pairs, a lower step cap)")
    if len(res["config"]["seeds"]) < 3:
        missing.append(f"seeds {len(res['config']['seeds']) + 1}-3 (no interval with one seed)"
                       if len(res["config"]["seeds"]) == 1 else "seed 3")
    if res.get("rq1_only"):
        missing.append("RQ2-RQ4: offline and serving throughput, request size, the ladder of labeler sizes")
    return missing


def plot(out_dir, name, script, data):
    """Runs gnuplot on `script` with its data files ({name: rows of columns}) beside the PNG."""
    for file, rows in data.items():
        with open(os.path.join(out_dir, file), "w") as f:
            f.writelines("\t".join(str(c) for c in row) + "\n" for row in rows)
    with open(os.path.join(out_dir, name + ".gp"), "w") as f:
        f.write(PLOT_STYLE + f"set output '{name}.png'\n" + script)
    r = subprocess.run(["gnuplot", name + ".gp"], cwd=out_dir, capture_output=True, text=True)
    if r.returncode != 0:
        print(f"gnuplot failed for {name}: {r.stderr}", file=sys.stderr)
    return f"![{name}]({name}.png)"


def cells(res):
    """{(method, pairs): [row per seed]} in size order."""
    by = collections.defaultdict(list)
    for r in res["quality"]:
        by[(r["method"], r["pairs"])].append(r)
    return by


def header(res):
    cfg = res["config"]
    corpus, base = res["world"]["corpus"], res["base"]
    loads = [l for s in res["step_times"].values() for l in (s.get("load") or [])]
    missing = left_out(res)
    scope = ([f"**This is not the study's full run.** It ran `bench/paper/run.sh{command(res)}`, a smaller run "
              f"for a busy machine, and leaves out {'; '.join(missing)}. Its numbers answer only what they "
              "measure, at this size; the full run (`bash bench/paper/run.sh` on an idle machine, about 6-7 hours) "
              "remains to be done.", ""] if missing else [])
    if "reference_sizes" not in cfg:  # results of a run made before the protocol listed its references
        scope += ["**These numbers come from a full run under an earlier protocol**, rendered by the current "
                  "report.py. That run did not measure what study.json's protocol now holds: sizes up to twice the "
                  "largest reference size (240,000 pairs) with a step cap every cell stops under, generation's "
                  "agreement on shuffled candidates, the (rank, qualification) baseline, train-split agreement (is it "
                  "data-limited?), the corpus without its skills sections, 3 seeds per ladder rung, offline rates "
                  "after the model load with tokens per label. The sections below say where a number is missing; "
                  "`bash bench/paper/run.sh` (6-7 hours on 2 idle cores) measures them.", ""]
    return ["# sift reproduces the paper's research questions", ""] + scope + [
            f"Output of `bench/paper/run.sh{command(res)}`: commit `{res['commit']}`"
            f"{' (with uncommitted changes)' if res['dirty'] else ''}"
            f"{', binary: ' + res['sift_version'] if res.get('sift_version') else ''}, {res['date']}, on {res['machine']}. "
            f"**Wall time {res['wall_seconds'] / 60:.0f} min** (the time its steps' own spans cover: steps side by side "
            "count once, pauses between invocations not at all), "
            f"{res['cpu_seconds'] / 60:.0f} CPU-minutes; the 1-minute load average at the steps' starts and ends "
            f"ranged {min(loads):.1f}-{max(loads):.1f} (mean {sum(loads) / len(loads):.1f}) on 2 cores, so the "
            "machine was shared when it was above 2 (the table at the end has each step). Regenerate with the same "
            "command; bench/paper/README.md says what each step does.", "",
            f"World: `sift synth --members {cfg['members']} --seed 11` ({res['world']['train_pairs']:,} training pairs, "
            "K = 20 BM25 candidates per profile, 5% label noise). Pretraining corpus from the same command "
            f"(`--pretraining-corpus --tokens {cfg['corpus_tokens']:,}`): {corpus['documents']:,} documents "
            f"({corpus['profiles']:,} profiles of a population disjoint from every split, most ending with a skills "
            "section that lists some of what the member holds by the world's clean truth; "
            f"{corpus['catalog_descriptions']:,} catalog descriptions, {corpus['lists']:,} lists), "
            f"{corpus['bytes'] / 1e6:.1f} MB; a 3,000-token BPE trained on it.", "",
            f"Base: the Qwen3 shape of tools/default_labeler/config.json ({base['parameters'] / 1e6:.2f}M parameters), "
            f"`sift train --objective lm` on the corpus ({base['train_tokens']:,} tokens, {cfg['pretrain_epochs']} "
            f"epoch(s), sequences of {res['pretrain_recipe']['sequence_tokens']} tokens, "
            f"{cfg['pretrain_batch_tokens']:,} tokens per step, lr {res['pretrain_recipe']['lr']}): "
            f"{base['steps']} steps, validation loss {base['validation_loss']:.3f} on "
            f"{cfg['corpus_validation_documents']} held-out documents.", "",
            f"Fine-tuning, both objectives, every size, seeds {', '.join(map(str, cfg['seeds']))} (the seed orders the "
            f"data): `--init-model` the base, AdamW lr {res['finetune_recipe']['lr']}, "
            f"{res['finetune_recipe']['batch_pairs']} pairs per step, `--early-stopping {cfg['patience']} --eval-every "
            f"{cfg['eval_every']} --min-delta {res['finetune_recipe']['min_delta']} --steps {cfg['max_steps']}` on "
            f"{cfg['validation_rows']} validation rows ({cfg['validation_rows'] * 20:,} pairs): scoring's validation "
            "agreement at its agreement-maximising threshold, generation's teacher-forced; the weights of the best "
            "evaluation are kept. Scoring labelers then get that threshold (`sift calibrate --target agreement` on "
            "the same rows).", ""]


def shuffled_mean(rows):
    """Generation's mean agreement on shuffled candidates over the seeds; NaN (no point in the
    plot) where the run did not measure it."""
    values = [r.get("shuffled_agreement") for r in rows]
    return "NaN" if None in values else statistics.fmean(values)


def quality_section(res, out_dir):
    by = cells(res)
    sizes = sorted({p for _, p in by})
    cfg = res["config"]
    n_seeds = len(cfg["seeds"])
    n_items = res["quality"][0]["n_items"]
    shuffled = any(r.get("shuffled_agreement") is not None for r in res["quality"])
    lines = ["## RQ1: quality and order consistency", "",
             f"Agreement with the reference labels on the held-out test split (member-disjoint), {n_items:,} pairs per "
             "labeler; " + (f"mean over {n_seeds} seeds ± the 95% t-interval" if n_seeds > 1 else "one seed, so no interval")
             + ". Truth = agreement with the synthetic world's clean labels (the reference flips 5% of them). "
             "Generation makes hard decisions (an unparsed answer counts as a disagreement); it is trained and tested "
             "on candidates in BM25 order, where most top-ranked candidates are YES, so *generation shuffled* is its "
             "agreement with each row's candidates in 3 fixed random orders (labels matched back by candidate): what "
             "it reaches without the order. Steps: where early stopping kept the weights (best evaluation) / where it "
             "stopped, per seed. Order inconsistency: labels that change when a row's candidates are re-scored in 3 "
             f"random orders ({res['quality'][0]['order_compared']:,} labels compared per labeler), summed over the "
             "seeds.", "",
             "| training pairs | scoring agreement | generation agreement | generation shuffled | scoring truth "
             "| generation truth | scoring steps (best/stop) | generation steps (best/stop) | scoring threshold "
             "| generation unparsed | scoring inconsistency | generation inconsistency |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for p in sizes:
        s, g = by[("scoring", p)], by[("generate", p)]
        steps = lambda rows: ", ".join(f"{r['best_step']}/{r['steps']}" for r in rows)  # noqa: E731
        changed = lambda rows: sum(r["order_changed"] for r in rows)  # noqa: E731
        compared = lambda rows: sum(r["order_compared"] for r in rows)  # noqa: E731
        g_shuffled = ([r["shuffled_agreement"] for r in g if r.get("shuffled_agreement") is not None])
        lines.append(f"| {p:,} | {mean_pm([r['agreement'] for r in s])} | {mean_pm([r['agreement'] for r in g])} | "
                     f"{mean_pm(g_shuffled) if g_shuffled else 'not measured'} | "
                     f"{mean_pm([r['truth_agreement'] for r in s])} | {mean_pm([r['truth_agreement'] for r in g])} | "
                     f"{steps(s)} | {steps(g)} | {', '.join('%.3f' % r['threshold'] for r in s)} | "
                     f"{sum(r['n_unparsed'] for r in g):,} | {pct(changed(s) / compared(s), 3)} ({changed(s)}) | "
                     f"{pct(changed(g) / compared(g), 3)} ({changed(g)}) |")
    lines += ["", f"Paper: {PAPER['agreement_small']}; {PAPER['agreement_large']}; generation needed "
              f"{PAPER['data_ratio']}x the pairs to match; inconsistency {PAPER['inconsistency_scoring']} (scoring) "
              f"vs {PAPER['inconsistency_generate']} (generation).", ""]
    if not shuffled:
        lines += ["This run predates the shuffled measurement (`sift eval --shuffles` reporting the shuffled labels' "
                  "agreement): generation's agreement without the BM25 order is not measured here.", ""]
    lines += efficiency_lines(res, by, sizes)
    worst_scoring = max(r["inconsistency"] for r in res["quality"] if r["method"] == "scoring")
    least_generate = min(r["inconsistency"] for r in res["quality"] if r["method"] == "generate")
    lines.append(f"\n**Order inconsistency**: scoring at most {pct(worst_scoring, 3)} for any labeler (MIS isolates each "
                 f"candidate, so its score does not depend on the others or their order, bit for bit); generation at "
                 f"least {pct(least_generate, 3)} for any labeler.")
    data = {"quality.tsv": [(p, *stats.mean_ci([r["agreement"] for r in by[("scoring", p)]]),
                             *stats.mean_ci([r["agreement"] for r in by[("generate", p)]]),
                             sum(r["inconsistency"] for r in by[("scoring", p)]) / len(by[("scoring", p)]),
                             sum(r["inconsistency"] for r in by[("generate", p)]) / len(by[("generate", p)]),
                             shuffled_mean(by[("generate", p)]))
                            for p in sizes]}
    lines += ["", plot(out_dir, "agreement", "set logscale x\nset key bottom right\nset xlabel 'training pairs'\n"
                       "set ylabel 'agreement with reference labels (mean, 95% interval)'\n"
                       "plot 'quality.tsv' u 1:2:3 w yerrorlines lw 2 t 'scoring (MIS)', "
                       "'' u 1:4:5 w yerrorlines lw 2 t 'packed generation', "
                       + ("'' u 1:8 w lp lw 2 dt 4 t 'packed generation, candidates shuffled', " if shuffled else "") +
                       f"{findings.best_blind(res['baselines'], 'scoring')[0]} w l dt 2 lc 'gray' "
                       "t 'best profile-blind answer (scoring)', "
                       f"{findings.best_blind(res['baselines'], 'generate')[0]} w l dt 3 lc 'black' "
                       "t 'best profile-blind answer (generation)'\n", data),
              plot(out_dir, "inconsistency", "set logscale x\nset xlabel 'training pairs'\n"
                   "set ylabel 'labels changed by reordering (%, mean over seeds)'\n"
                   "plot 'quality.tsv' u 1:($6*100) w lp lw 2 t 'scoring (MIS)', '' u 1:($7*100) w lp lw 2 "
                   "t 'packed generation'\n", {}), ""]
    return lines


def efficiency_lines(res, by, sizes):
    """Data efficiency at the protocol's reference sizes, its sign at each, then the same
    reading at every size for context."""
    n_seeds = len(res["config"]["seeds"])
    scoring_at = {p: [r["agreement"] for r in by[("scoring", p)]] for p in sizes}
    generate_at = {p: [r["agreement"] for r in by[("generate", p)]] for p in sizes}
    refs, preregistered = findings.reference_sizes(res)
    effs = [findings.efficiency_at(scoring_at, generate_at, ref, n_seeds) for ref in refs]
    when = ("listed in study.json's protocol before the run" if preregistered else
            "read from study.json's protocol, which was set after this run's numbers were seen (this run's "
            "configuration predates the list)")
    lines = [f"**Data efficiency** (the paper's definition, §6.2) at the reference sizes {when}: "
             f"{', '.join(f'{r:,}' for r in refs)} pairs. Scoring's mean agreement at a reference size is the target; "
             "the pairs generation needs to reach it are read off its mean curve (linear interpolation in log(pairs) "
             "between the two sizes that bracket the target; the interval redraws each cell's seeds with replacement "
             "2,000 times).", "",
             "| reference size | scoring mean (target) | generation reaches it at | ratio (generation / scoring pairs) |",
             "|---|---|---|---|"]
    for e in effs:
        if not e["measured"]:
            lines.append(f"| {e['ref']:,} | - | - | {findings.ratio_text(e, n_seeds)} |")
            continue
        at = (f"not up to {e['largest']:,}" if e["kind"] == "never" else f"at most {sizes[0]:,}"
              if e["kind"] == "at_smallest" else f"{e['pairs']:,.0f}")
        lines.append(f"| {e['ref']:,} | {pct(e['target'])} | {at} | {findings.ratio_text(e, n_seeds)} |")
    base = res["baselines"]
    unlearned = [e["ref"] for e in effs if e["measured"] and findings.within_blind(e["target"], base, "scoring")]
    caveat = (f" At {', '.join(f'{r:,}' for r in unlearned)} pairs scoring itself is within {VALIDITY_POINTS} points "
              "of its best profile-blind answer (the validity table below): the target there is an answer that has "
              "not learned the task." if unlearned else "")
    generate_means = {p: statistics.fmean(v) for p, v in generate_at.items()}
    generate_unlearned = findings.unlearned_sizes(generate_means, base, "generate")
    if generate_unlearned:
        value, name = findings.best_blind(base, "generate")
        where = ("every size" if len(generate_unlearned) == len(sizes) else
                 ", ".join(f"{p:,}" for p in generate_unlearned) + " pairs")
        caveat += (f" Generation is less than {VALIDITY_POINTS} points above its own best profile-blind answer "
                   f"({findings.BASELINE_NAMES[name]}, {pct(value)}) at {where}: a lookup of each candidate's name "
                   "and BM25 rank, which never reads the profile, comes that close to the agreement generation "
                   "matches scoring with.")
    lines += ["", f"**In sum: {findings.summary_sentence(effs)}** Paper: {PAPER['data_ratio']}x at its reference "
              f"(scoring more data-efficient).{caveat}", ""]
    shuffled_at = {p: [r.get("shuffled_agreement") for r in by[("generate", p)]] for p in sizes}
    if all(None not in v for v in shuffled_at.values()):
        unordered = [findings.efficiency_at(scoring_at, shuffled_at, ref, n_seeds) for ref in refs]
        ratios = "; ".join(f"{e['ref']:,}: {findings.ratio_text(e, n_seeds)}" for e in unordered)
        lines += ["**Without the order** (generation's agreement on shuffled candidates, the column above, in place of "
                  "its agreement in BM25 order; it was trained and tuned in that order): "
                  f"{findings.summary_sentence(unordered)[:-1]} ({ratios}).", ""]
    lines += ["For context, not pre-registered, the same reading with every size as the reference (at the smaller "
              "sizes both objectives are near their profile-blind answers, the validity table below says which):", "",
              "| reference size | scoring mean | ratio |", "|---|---|---|"]
    for p in sizes:
        e = findings.efficiency_at(scoring_at, generate_at, p, n_seeds)
        lines.append(f"| {p:,} | {pct(e['target'])} | {findings.ratio_text(e, n_seeds)} |")
    return lines + [""]


def validity_section(res):
    """The validity check at every size, each objective against the best profile-blind answer it
    could give; returns (lines, failures): failures are the largest size's (the script's exit
    status), a smaller size that did not learn is a finding."""
    by = cells(res)
    sizes = sorted({p for _, p in by})
    largest = sizes[-1]
    base = res["baselines"]
    measured = [f"{findings.BASELINE_NAMES[n]} {pct(base[n])}" for n in findings.BASELINE_NAMES if n in base]
    blind = {m: findings.best_blind(base, m) for m in ("scoring", "generate")}
    lines = ["## Validity: do the labelers read the profile?", "",
             "Answers that never read the profile, learned from the training split's reference labels and measured "
             f"on the same test pairs: {'; '.join(measured)}. Each objective is held to the best answer it could give "
             "without the profile: scoring scores each candidate alone, so it cannot see the BM25 rank (its best: "
             f"{findings.BASELINE_NAMES[blind['scoring'][1]]}, {pct(blind['scoring'][0])}); generation reads the "
             f"candidates in rank order (its best: {findings.BASELINE_NAMES[blind['generate'][1]]}, "
             f"{pct(blind['generate'][0])})." + ("" if "by_rank_qualification" in base else
                                                  " (This run predates the (rank, qualification) table.)")
             + f" A labeler within {VALIDITY_POINTS} points of its baseline has not learned the task; at the largest "
             f"size the script then exits with an error. The target is {TARGET_POINTS} points above it, and scoring "
             f"{pct(SCORING_TARGET, 0)} agreement.", "",
             "| training pairs | labeler | agreement (mean) | its best profile-blind answer | gap | steps (best/stop) "
             "| verdict |", "|---|---|---|---|---|---|---|"]
    failures, why, short = [], [], False
    for p in sizes:
        for method, name in (("scoring", "scoring"), ("generate", "generation")):
            rows = by[(method, p)]
            mean = statistics.fmean(r["agreement"] for r in rows)
            steps = ", ".join(f"{r['best_step']}/{r['steps']}" for r in rows)
            capped = sum(not r["stopped_early"] for r in rows)
            if capped:  # the --steps cap ended the run before the plateau
                steps += f" ({capped} of {len(rows)} at the --steps cap, not at a plateau)"
            value, baseline = blind[method]
            gap = mean - value
            if findings.within_blind(mean, base, method):
                verdict = red(f"did not learn the task: within {VALIDITY_POINTS} points")
                if p == largest:
                    failures.append(f"{name} at {p:,} pairs is {100 * gap:+.2f} points from its best profile-blind answer")
                    why.append(plateau_note(name, method, rows, res))
            elif gap < TARGET_POINTS / 100:
                verdict = f"reads the profile, {100 * gap:.1f} points short of the {TARGET_POINTS}-point target"
                short = short or (p == largest and not capped)
            else:
                verdict = f"meets the target ({TARGET_POINTS} points above)"
            if method == "scoring" and p == largest:
                verdict += (f"; {pct(mean)} {'meets' if mean >= SCORING_TARGET else 'is below'} the "
                            f"{pct(SCORING_TARGET, 0)} scoring target")
                short = short or (mean < SCORING_TARGET and not capped)
            lines.append(f"| {p:,} | {name} | {pct(mean)} | {findings.BASELINE_NAMES[baseline]} ({pct(value)}) | "
                         f"{points(gap)} points | {steps} | {verdict} |")
    if short:
        why.append("Where a labeler at the largest size is short of a target, its runs stopped at their plateau of "
                   "validation agreement (early stopping), not at the step cap: the shortfall is what this recipe "
                   "reaches with this shape and this much data, not a run cut short.\n")
    return lines + [""] + why, failures


def data_limited_section(res):
    """Train-split against test agreement at the protocol's data_limited_sizes, and whether each
    objective is data-limited (bench/paper/findings.py decides)."""
    by = cells(res)
    sizes = [p for p in res["config"].get("data_limited_sizes", []) if ("scoring", p) in by]
    lines = ["## Is the study data-limited?", ""]
    fitted = [r for r in res["quality"] if r.get("train_agreement") is not None and r["pairs"] in sizes]
    if len(sizes) < 2 or not fitted:
        return lines + ["Not measured in this run: it has no train-split agreement at two sizes (the protocol's "
                        "`data_limited_sizes`, the largest reference and twice it).", ""]
    lines += [f"Agreement on training rows the labeler was fine-tuned on (the first {res['config']['train_eval_rows']:,} "
              "rows of the training split, inside every size below) beside its test agreement, mean over the seeds. "
              "A labeler whose test agreement rises clearly with twice the pairs is data-limited at the smaller size; "
              f"one that agrees {findings.FIT_GAP_POINTS} or more points better on rows it saw than on unseen ones "
              "still fits what it saw better than what it did not.", "",
              "| labeler | training pairs | train-split agreement | test agreement | train - test | steps (best/stop) |",
              "|---|---|---|---|---|---|"]
    verdicts = []
    for method, name in (("scoring", "scoring"), ("generate", "generation")):
        train, test = {}, {}
        for p in sizes:
            rows = by[(method, p)]
            train[p] = [r["train_agreement"] for r in rows if r.get("train_agreement") is not None]
            test[p] = [r["agreement"] for r in rows]
            steps = ", ".join(f"{r['best_step']}/{r['steps']}" + ("" if r["stopped_early"] else " (cap)") for r in rows)
            gap = statistics.fmean(train[p]) - statistics.fmean(test[p]) if train[p] else None
            lines.append(f"| {name} | {p:,} | {pct(statistics.fmean(train[p])) if train[p] else '-'} | {mean_pm(test[p])} | "
                         f"{'-' if gap is None else points(gap) + ' points'} | {steps} |")
        verdict = findings.data_limited(method, (sizes[0], test[sizes[0]]), (sizes[-1], test[sizes[-1]]),
                                        {p: v for p, v in train.items() if v})
        verdicts.append(verdict["text"])
    return lines + [""] + [f"- {v}." for v in verdicts] + [""]


def ablation_section(res):
    """The base pretrained without the corpus's skills sections against the study's base."""
    ab = res.get("ablation")
    lines = ["## The pretraining corpus's skills sections", "",
             "The corpus's profiles (members outside every split) mostly end with a skills section that lists some of "
             "what the member holds by the world's clean truth: it pairs a profile with qualifications it supports, "
             "the positive half of a label, though of no member of any split."]
    if not ab:
        return lines[:-1] + [lines[-1] + " The ablation (a base pretrained without those sections, `sift synth --no-skills-sections`) is "
                        "not in this run.", ""]
    by = cells(res)
    nb = ab["base"]
    lines[-1] += (" The ablation pretrains the same shape with the same recipe and tokenizer on the corpus written "
                  f"with `--no-skills-sections` (the same tokens, other documents filling them; validation loss "
                  f"{nb['validation_loss']:.3f} on its own held-out text, against {res['base']['validation_loss']:.3f}) "
                  "and fine-tunes both objectives on it as in RQ1.")
    lines += ["", "| labeler | training pairs | seed | base with skills sections | base without | change | RQ1 seeds "
              "with skills (range) |", "|---|---|---|---|---|---|---|"]
    changes = []
    for r in sorted(ab["cells"], key=lambda r: (r["method"], r["pairs"], r["seed"])):
        rq1 = by.get((r["method"], r["pairs"]), [])
        same = next((q for q in rq1 if q["seed"] == r["seed"]), None)
        name = "scoring" if r["method"] == "scoring" else "generation"
        spread = f"{pct(min(q['agreement'] for q in rq1))} to {pct(max(q['agreement'] for q in rq1))}" if rq1 else "-"
        change = r["agreement"] - same["agreement"] if same else None
        if change is not None:
            outside = not (min(q["agreement"] for q in rq1) <= r["agreement"] <= max(q["agreement"] for q in rq1))
            changes.append((name, r["pairs"], change, outside and len(rq1) > 1))
        lines.append(f"| {name} | {r['pairs']:,} | {r['seed']} | {pct(same['agreement']) if same else '-'} | "
                     f"{pct(r['agreement'])} | {'-' if change is None else points(change) + ' points'} | {spread} |")
    if changes:
        parts = [f"{n} at {p:,} pairs {100 * c:+.2f} points" + (" (outside RQ1's seeds)" if out else "")
                 for n, p, c, out in changes]
        lines += ["", "Without the skills sections: " + "; ".join(parts) + ". One seed per cell: a change inside the "
                  "range of RQ1's seeds is not told apart from the seed."]
    return lines + [""]


def plateau_note(name, method, rows, res):
    """Why a labeler that failed the validity check stopped: at the step cap (more steps might
    help) or at its plateau (they would not, with this shape and recipe)."""
    cfg = res["config"]
    if any(not r["stopped_early"] for r in rows):
        return (f"**Why {name} did not learn the task**: the --steps cap ({cfg['max_steps']:,}) ended a run before "
                "its plateau; a larger cap may let it leave the profile-blind answer.\n")
    best = ", ".join(f"{pct(r['validation_best'])} at step {r['best_step']:,}" for r in rows)
    signal = "teacher-forced validation agreement" if method == "generate" else "validation agreement"
    text = (f"**Why {name} did not learn the task**: it reached its plateau, not the step cap: its best {signal} "
            f"was {best}, and {cfg['patience'] * cfg['eval_every']:,} more steps brought no gain of "
            f"{100 * float(res['finetune_recipe']['min_delta']):.1f} point. More steps of this recipe would not change "
            "the verdict: at this labeler shape and data size, the recipe leaves this objective near the "
            "profile-blind answer.")
    if method == "generate":
        text += (" Teacher-forced, each answer is predicted after the reference's earlier answers; decoding "
                 "feeds it its own, and the test agreement above is the decoded one.")
    return text + "\n"


def throughput_section(res, out_dir):
    off = res["offline"]
    load = lambda step: "-".join(f"{x:.1f}" for x in res["step_times"][step]["load"])  # noqa: E731
    after_load = "labels_per_s_with_load" in off["mis"]  # earlier runs timed the whole command, load included
    lines = ["## RQ2: throughput, offline and served", "",
             f"Offline: `sift --threads 2 score` over {off.get('rows', 0) or 'the'} test rows ({off['labels']:,} labels), "
             "3 interleaved repetitions; " + (
                 "labels/s is the median of what `sift score` reports for the scoring itself, after the model load "
                 f"({rows_per_call_note(res, off)}), and the wall time of the whole command (the load included) is "
                 "beside it" if after_load else "labels/s from the median wall time, the model load included (this run "
                 "predates timing the scoring alone)") +
             "; mis and independent with a largest-size scoring labeler (seed 1), generate with the largest-size "
             "generation labeler (seed 1), same shape. Prompt tokens are those the forward calls ran, decoded tokens "
             "those generation wrote, per label, from the output's usage. Load average at the start and "
             f"end of the measurement: {load('offline')} on 2 cores" + (
                 " (above 2: other work shared the machine and the numbers are not valid; `bash bench/paper/run.sh "
                 "--throughput` re-measures these steps alone)." if max(res["step_times"]["offline"]["load"]) > 2
                 else ", nothing else running."), "",
             "| mode | labels/s | vs packed generation | prompt tokens per label | decoded tokens per label "
             "| tokens/s (prompt + decoded) | labels/s with the model load |", "|---|---|---|---|---|---|---|"]
    per_token = {mode: tokens_per_s(off[mode]) for mode in ("mis", "generate", "independent")}
    for mode in ("mis", "generate", "independent"):
        m = off[mode]
        tokens = lambda key: "-" if m.get(key) is None else f"{m[key]:.1f}"  # noqa: E731
        lines.append(f"| {mode} | {rate(m['labels_per_s'])} | {m['labels_per_s'] / off['generate']['labels_per_s']:.2f}x | "
                     f"{tokens('prefill_tokens_per_label')} | {tokens('decoded_tokens_per_label')} | "
                     f"{rate(per_token[mode])} | {rate(m.get('labels_per_s_with_load'))} |")
    lines += ["", f"Paper: {PAPER['offline']}.", ""]
    if None not in per_token.values():
        mis, independent = off["mis"], off["independent"]
        lines += [f"What a token costs: mis runs {rate(per_token['mis'])} tokens/s and independent "
                  f"{rate(per_token['independent'])}, both prefill: independent's "
                  f"{independent['prefill_tokens_per_label'] / mis['prefill_tokens_per_label']:.1f}x the prompt tokens "
                  f"per label cost it {mis['labels_per_s'] / independent['labels_per_s']:.1f}x in labels/s. Generation "
                  "runs "
                  f"{rate(per_token['generate'])} tokens/s, {per_token['mis'] / per_token['generate']:.1f}x fewer "
                  f"than mis: its {off['generate']['decoded_tokens_per_label']:.1f} decoded tokens per label are "
                  "sequential steps, each forward call one token of every row in hand (the batched decoder), so its "
                  "rate follows its decoding steps, not its token count.", ""]

    served = res["serving"]["results"]
    lines += ["Served: `sift serve --threads 2` on a loopback port driven by `sift loadgen` (bench/serve_bench.py's "
              "`measure`): one request alone (median wall), labels per server CPU-second, and labels/s at "
              "p99 <= 1 s (`--find-max`, open-loop Poisson; `-` where one request alone takes more than 0.5 s). "
              f"Rows: profiles of a K = 200 world, the first N candidates. Load: {load('serving')}.", "",
              "| N | mode | one request alone (ms) | labels per server CPU-s | labels/s at p99 <= 1 s | mis / this (p99) |",
              "|---|---|---|---|---|---|"]
    by = {(r["n"], r["mode"]): r for r in served}
    modes = ("mis", "generate", "independent")
    for (n, mode), r in sorted(by.items(), key=lambda kv: (kv[0][0], modes.index(kv[0][1]))):
        mis = by[(n, "mis")]["at_p99"]
        ratio = f"{mis / r['at_p99']:.2f}x" if mis and r["at_p99"] and mode != "mis" else ""
        lines.append(f"| {n} | {mode} | {r['alone_ms']:,.0f} | {r['saturated_per_cpu_s']:,.0f} | {rate(r['at_p99'])} | {ratio} |")
    n_max = max(n for n, _ in by)
    mis, gen = by[(n_max, "mis")]["at_p99"], by[(n_max, "generate")]["at_p99"]
    verdict = (f"at N = {n_max}, served mis holds **{mis / gen:.2f}x** packed generation's labels/s at p99 <= 1 s"
               if mis and gen else
               f"at N = {n_max}, " + ("packed generation holds no rate at p99 <= 1 s on this machine (one request "
                                      f"alone takes {by[(n_max, 'generate')]['alone_ms']:,.0f} ms) while mis holds "
                                      f"{rate(mis)} labels/s" if mis else "mis holds no rate at p99 <= 1 s"))
    lines += ["", f"Paper: {PAPER['serving']}. sift: {verdict}.", ""]
    lines.append(plot(out_dir, "serving", "set xlabel 'candidates per request (N)'\nset ylabel 'labels/s at p99 <= 1 s'\n"
                      "set xtics (20, 50, 100, 200)\n"
                      "plot 'serving.tsv' u 1:2 w lp lw 2 t 'mis', '' u 1:3 w lp lw 2 t 'packed generation', "
                      "'' u 1:4 w lp lw 2 t 'independent'\n",
                      {"serving.tsv": [(n, *[(by[(n, m)]["at_p99"] or "NaN") for m in modes])
                                       for n in sorted({n for n, _ in by})]}))
    return lines + [""]


def tokens_per_s(mode):
    """Prompt plus decoded tokens per second of one offline mode's measurement; None where the run
    predates the tokens per label."""
    if mode.get("prefill_tokens_per_label") is None:
        return None
    return mode["labels_per_s"] * (mode["prefill_tokens_per_label"] + (mode.get("decoded_tokens_per_label") or 0))


def rows_per_call_note(res, off):
    """How many forward calls the offline rows make at least: a call holds at most the model's
    positions of prompt tokens (config.json's max_position_embeddings), a row in mis its prompt
    tokens."""
    labeler = next((r["dir"] for r in res["quality"] if r["method"] == "scoring"), None)
    config = os.path.join(labeler or "", "config.json")
    tokens_per_label = off["mis"].get("prefill_tokens_per_label")
    if not os.path.exists(config) or not tokens_per_label or not off.get("rows"):
        return "the rows are many forward calls"
    positions = json.load(open(config)).get("max_position_embeddings")
    row_tokens = tokens_per_label * off["labels"] / off["rows"]
    per_call = max(1, int(positions // row_tokens)) if positions else None
    if not per_call:
        return "the rows are many forward calls"
    return (f"{off['rows']:,} rows of about {row_tokens:.0f} prompt tokens in mis, at most {per_call} to a forward call "
            f"of at most {positions:,} tokens: at least {off['rows'] / per_call:.0f} calls' worth")


def request_size_section(res):
    split = res["serving"]["split"]
    keys = list(split)
    one = split[keys[0]]
    load = "-".join(f"{x:.1f}" for x in res["step_times"]["serving_split"]["load"])
    lines = ["## RQ3: request size", "",
             "Served labels/s against N is the table and plot above. Splitting: each row of 200 candidates sent as "
             "two requests of 100 with the same profile, one after the other (as a client sends the halves of a round), "
             f"against one request of 200; the query-KV cache on (the second half prefills only its items) and off. "
             f"Load: {load}.", "",
             "| how | labels/s (wall) | vs one request | labels per server CPU-s | vs one request |", "|---|---|---|---|---|"]
    for k in keys:
        lines.append(f"| {k} | {split[k]['labels_per_s']:,.1f} | {split[k]['labels_per_s'] / one['labels_per_s']:.2f} | "
                     f"{split[k]['labels_per_cpu_s']:,.1f} | {split[k]['labels_per_cpu_s'] / one['labels_per_cpu_s']:.2f} |")
    off = split[keys[2]]["labels_per_s"] / one["labels_per_s"] - 1
    on = split[keys[1]]["labels_per_s"] / one["labels_per_s"] - 1
    lines += ["", f"Paper: {PAPER['serving_n200']}; {PAPER['split']} (SGLang, no prefix reuse with MIS). "
              f"sift: {100 * on:+.1f}% with the cache, {100 * off:+.1f}% without. One measurement per configuration "
              f"of {res['config']['split_rows']} rows, client and server on the same 2 cores: differences of a few "
              "percent are within this machine's run-to-run noise. The study's profiles are short (about 100 tokens "
              "against the paper's 744), so prefilling the query twice costs little here.", ""]
    return lines


def shape_of(pretraining):
    """{"hidden_size", "num_hidden_layers"} of a base: its record's, its config.json's, or the
    study's table of shapes (a run whose bases are gone)."""
    if "hidden_size" in pretraining:
        return pretraining
    config = os.path.join(pretraining.get("dir", ""), "config.json")
    if os.path.exists(config):
        return json.load(open(config))
    try:
        import study  # noqa: E402  (bench/paper/study.py: LADDER, BASE_CONFIG)
        return {**json.load(open(study.BASE_CONFIG)), **study.LADDER.get(pretraining.get("shape"), {})}
    except (ImportError, OSError, KeyError):
        return {}


def ladder_section(res, out_dir):
    """RQ4: every rung's seeds (mean ± interval), whether it learned the task (VALIDITY_POINTS
    above scoring's best profile-blind answer), its speed against the base shape's, and the
    smallest rung within 1 point of the best, a conclusion that holds at this data size."""
    ladder, off = res["ladder"], res["ladder_offline"]
    pairs = ladder[0]["pairs"]
    by_shape = collections.defaultdict(list)
    for r in ladder:
        by_shape[r["shape"]].append(r)
    shapes = sorted(by_shape, key=lambda sh: by_shape[sh][0]["pretraining"]["parameters"])
    base_shape = res["base"]["shape"]
    base_rate = off.get(base_shape, {}).get("labels_per_s")
    blind, blind_name = findings.best_blind(res["baselines"], "scoring")
    n_seeds = max(len(v) for v in by_shape.values())
    load = "-".join(f"{x:.1f}" for x in res["step_times"]["ladder_offline"]["load"])
    lines = ["## RQ4: the smallest labeler that keeps quality", "",
             f"Labelers of {len(shapes)} sizes, each pretrained on the same corpus with the same recipe and fine-tuned "
             f"with scoring's recipe at {pairs:,} training pairs, "
             + (f"{n_seeds} seeds each (mean ± the 95% t-interval)" if n_seeds > 1 else "one seed each (no interval)")
             + "; agreement on the test pairs of RQ1. A rung within "
             f"{VALIDITY_POINTS} points of scoring's best profile-blind answer ({findings.BASELINE_NAMES[blind_name]}, "
             f"{pct(blind)}) did not learn the task. Offline labels/s by `sift --threads 2 score --mode mis` (after the "
             f"model load), 3 interleaved repetitions (load {load}), and as a multiple of the base shape's "
             f"({base_shape}).", "",
             "| labeler | parameters | hidden x layers | pretraining validation loss | fine-tuning steps (best/stop) "
             "| agreement | truth agreement | offline labels/s | speed vs base | verdict |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    summary = []
    for sh in shapes:
        rows = sorted(by_shape[sh], key=lambda r: r.get("seed", 1))
        first = rows[0]
        c = shape_of(first["pretraining"])
        mean = statistics.fmean(r["agreement"] for r in rows)
        speed = off.get(sh, {}).get("labels_per_s")
        learned = not findings.within_blind(mean, res["baselines"], "scoring")
        summary.append({"shape": sh, "agreement": mean, "learned": learned, "labels_per_s": speed,
                        "parameters": first["pretraining"]["parameters"]})
        lines.append(f"| {sh} | {first['pretraining']['parameters'] / 1e6:.2f}M | "
                     f"{c.get('hidden_size', '?')} x {c.get('num_hidden_layers', '?')} | "
                     f"{first['pretraining']['validation_loss']:.3f} | "
                     f"{', '.join(str(r['best_step']) + '/' + str(r['steps']) for r in rows)} | "
                     f"{mean_pm([r['agreement'] for r in rows])} | {mean_pm([r['truth_agreement'] for r in rows])} | "
                     f"{rate(speed)} | {f'{speed / base_rate:.1f}x' if speed and base_rate else '-'} | "
                     f"{'learned' if learned else red('did not learn')} |")
    learned = [r for r in summary if r["learned"]]
    if learned:
        best = max(learned, key=lambda r: r["agreement"])
        smallest = stats.smallest_within(learned, "agreement", 0.01)
        speed = (f", {smallest['labels_per_s'] / base_rate:.1f}x the base shape's labels/s"
                 if smallest["labels_per_s"] and base_rate else "")
        lines += ["", f"**At {pairs:,} training pairs**, the best mean agreement is {pct(best['agreement'])} "
                  f"({best['shape']}); the smallest labeler within 1 point of it is **{smallest['shape']}** "
                  f"({smallest['parameters'] / 1e6:.2f}M parameters, {pct(smallest['agreement'])}{speed}). This holds "
                  "at this data size: with more pairs a larger labeler may pull ahead, with fewer the smaller ones "
                  "may not learn at all. " + (f"Rungs that did not learn: {', '.join(r['shape'] for r in summary if not r['learned'])}. "
                                              if len(learned) < len(summary) else "") + f"Paper: {PAPER['rq4']}.", ""]
    else:
        lines += ["", f"**At {pairs:,} training pairs no rung learned the task**: the ladder says nothing about the "
                  "smallest labeler that keeps quality at this data size.", ""]
    if n_seeds < 2:
        lines += ["One seed per size: rungs closer than the seeds' spread of RQ1's labelers are not told apart.", ""]
    lines.append(plot(out_dir, "ladder", "set xlabel 'offline labels/s (sift score --mode mis, 2 threads)'\n"
                      "set ylabel 'agreement with reference labels (mean over seeds)'\nset logscale x\nset key bottom left\n"
                      "plot 'ladder.tsv' u 2:3 w lp lw 2 pt 7 t 'labelers by size', "
                      "'' u 2:3:1 w labels offset 1,1 notitle\n",
                      {"ladder.tsv": [(r["shape"], r["labels_per_s"], r["agreement"]) for r in summary]}))
    return lines + [""]


def differences_section(res):
    return ["## Where sift's study differs from the paper's, and why", "",
            "- **The world is synthetic** (`sift synth`): qualifications a profile supports are mentioned in it or "
            "implied by its roles, and 5% of reference labels are flipped at random, so agreement is capped near 95% "
            "and the clean truth is known. The paper labels real member profiles with a production teacher.",
            "- **The base is small and pretrained here**, on a corpus of the world's own language (profiles of other "
            "members, most with a skills section drawn from that member's clean truth, catalog descriptions, lists; "
            "bench/paper/README.md says why no member of any split is in it), where the paper fine-tunes pretrained "
            "8B / 0.6B LLMs. What the base brings (reading a profile, knowing the catalog's names and what implies "
            "what, numbered lists) is what a real LLM brings, at a far smaller scale; the skills sections also pair "
            "profiles with qualifications they support, which a real LLM's text does only loosely (the section on "
            "them measures what they are worth).",
            "- **Fine-tuning stops at the plateau** of validation agreement (early stopping), as a practitioner would; "
            "steps differ per cell and are in the tables.",
            "- **Throughput is measured on 2 CPU cores**, not a GPU: a prefill call costs about its token count "
            "whatever the batch, so mis against independent follows the prompt tokens each processes (mis: the "
            "profile once and each candidate once; independent: the profile once per candidate); generation's "
            "decoded tokens are sequential steps, each a narrow forward call over the rows in hand, and cost more "
            "each (RQ2 gives each mode's tokens per second). The paper's ratios are stack-level (different engines, "
            "checkpoints and tuning; its generation runs on SGLang with continuous batching, sift's with its own "
            "batched decoder).",
            f"- **Sizes**: the paper's axis runs to 443K pairs on ~100M pairs of data; this study's runs to "
            f"{max(r['pairs'] for r in res['quality']):,} pairs, sized for a full run of a few hours on 2 idle cores.",
            ""]


def step_table(res):
    lines = ["## Step times", "",
             "Each step's wall time, its CPU time (the commands it ran) and the 1-minute load average at its start and "
             "end (2 cores; above 2 the machine was shared with other work).", "",
             "| step | wall (s) | CPU (s) | load |", "|---|---|---|---|"]
    for name, s in res["step_times"].items():
        load = "-".join(f"{x:.1f}" for x in (s.get("load") or []))
        lines.append(f"| {name} | {s['seconds']:,.0f} | {(s.get('cpu_seconds') or 0):,.0f} | {load} |")
    return lines + [""]


def write(res, path):
    """Writes the report; returns the validity check's failures."""
    out_dir = os.path.dirname(os.path.abspath(path))
    validity, failures = validity_section(res)
    measured = (["## RQ2-RQ4: not run", "",
                  "This run stopped after RQ1 (`--rq1-only`): no corpus ablation, no offline or serving throughput, no "
                  "request-size experiment, no ladder of labeler sizes. `bash bench/paper/run.sh` runs them; "
                  "throughput measured while other work shares the machine is not valid, so they want an idle machine "
                  "(`--throughput` re-measures them alone).", ""]
                if res.get("rq1_only") else
                ablation_section(res) + throughput_section(res, out_dir) + request_size_section(res)
                + ladder_section(res, out_dir))
    lines = (header(res) + quality_section(res, out_dir) + validity + data_limited_section(res) + measured
             + differences_section(res) + step_table(res))
    with open(path + ".tmp", "w") as f:
        f.write("\n".join(lines))
    os.replace(path + ".tmp", path)
    return failures


if __name__ == "__main__":  # python3 bench/paper/report.py STUDY_JSON [REPORT]
    write(json.load(open(sys.argv[1])), sys.argv[2] if len(sys.argv) > 2 else os.path.join(os.path.dirname(__file__), "REPORT.md"))
