"""What the study's numbers say, decided here and worded by bench/paper/report.py: pure
functions over the results of bench/paper/study.py (study.json), so the verdicts can be tested
on small synthetic results (tests/bench/test_paper_findings.py).

- The baselines each objective is checked against: answers that never read the profile. Rank
  (the candidate's BM25 position) is what generation sees and scoring does not, so scoring's
  best is every label NO or each qualification's majority label, generation's also the
  majority per rank and per (rank, qualification).
- Data efficiency at the reference sizes the protocol lists before the run (study.json's
  "reference_sizes"), never chosen from the results, and the sign at each: which objective
  needs fewer pairs to reach scoring's agreement there.
- Whether a labeler is data-limited: its test agreement with twice the pairs, and how much
  better it agrees on the training rows it saw than on the test rows.
"""
import statistics

import stats

VALIDITY_POINTS = 5   # a labeler this close to its best profile-blind baseline has not learned the task
TARGET_POINTS = 10    # what a labeler that reads the profile should clear at the largest size
FIT_GAP_POINTS = 2    # train agreement this far above test: the labeler fits what it saw better

BASELINE_NAMES = {
    "all_no": "every label NO",
    "by_position": "the majority label per BM25 rank",
    "by_qualification": "each qualification's majority label",
    "by_rank_qualification": "the majority label per (rank, qualification)",
}
# What each objective can see: MIS scores every candidate alone (no rank); generation reads the
# candidates as a numbered list in BM25 order.
BASELINES_OF = {
    "scoring": ("all_no", "by_qualification"),
    "generate": ("all_no", "by_position", "by_qualification", "by_rank_qualification"),
}


def best_blind(baselines, method):
    """(agreement, name) of the best baseline available to `method` among those measured."""
    return max((baselines[name], name) for name in BASELINES_OF[method] if name in baselines)


def within_blind(mean, baselines, method):
    """Whether a mean agreement lies within VALIDITY_POINTS of `method`'s best profile-blind
    answer: a labeler there has not learned the task (it could answer so without the profile)."""
    return mean - best_blind(baselines, method)[0] < VALIDITY_POINTS / 100


def reference_sizes(res):
    """The reference sizes of data efficiency, as the run's configuration lists them, and
    whether they were set before the run: (sizes, preregistered). A run whose configuration
    predates the list (it had none) reads the protocol's, set after its numbers were seen."""
    cfg = res["config"]
    if cfg.get("reference_sizes"):
        return list(cfg["reference_sizes"]), True
    protocol = (res.get("protocol") or {}).get("quick" if res.get("quick") else "full") or {}
    return list(protocol.get("reference_sizes") or []), False


def efficiency_at(scoring, generate, ref, n_seeds):
    """Data efficiency at one reference size. scoring, generate: {pairs: [agreement per seed]}.
    Returns stats.data_efficiency's dict with "ref", "largest" (the largest size measured),
    "measured" (False when the reference is not among scoring's sizes) and "sign": "generation"
    (generation needs fewer pairs), "scoring", or "neither" (the interval spans 1x)."""
    largest = max(generate)
    if ref not in scoring:
        return {"ref": ref, "largest": largest, "measured": False, "sign": None}
    eff = stats.data_efficiency(scoring, generate, ref)
    eff.update(ref=ref, largest=largest, measured=True)
    if eff["kind"] == "never":
        eff["sign"] = "scoring"  # generation needs more than every size measured
    elif n_seeds < 2:
        eff["sign"] = "generation" if eff["ratio"] < 1 else "scoring" if eff["ratio"] > 1 else "neither"
    elif eff["high"] < 1:
        eff["sign"] = "generation"
    elif eff["low"] > 1:
        eff["sign"] = "scoring"
    else:
        eff["sign"] = "neither"
    if eff["kind"] == "at_smallest" and eff["ratio"] >= 1:
        eff["sign"] = "neither"  # reached at the reference itself, the smallest size: at most 1x
    return eff


def bound(x):
    return "not reached" if x == float("inf") else f"{x:.2f}x"


def ratio_text(eff, n_seeds):
    """The ratio as the report prints it: "0.47x (95% interval 0.36x to 0.59x)", "not reached up
    to 240,000 pairs (more than 2.0x)", "at most 0.25x"; "not measured" when the run has no
    cell at the reference."""
    if not eff["measured"]:
        return f"not measured (no cell at {eff['ref']:,} pairs in this run)"
    if eff["kind"] == "never":
        return f"not reached up to {eff['largest']:,} pairs (more than {eff['largest'] / eff['ref']:.1f}x)"
    if eff["kind"] == "at_smallest":
        return f"at most {eff['ratio']:.2f}x (reached at the smallest size)"
    interval = (f" (95% interval {bound(eff['low'])} to {bound(eff['high'])})" if n_seeds > 1 else " (one seed: no interval)")
    return f"{eff['ratio']:.2f}x{interval}"


def sign_text(eff):
    """Which objective is more data-efficient at this reference, in words."""
    if not eff["measured"]:
        return f"at {eff['ref']:,} pairs not measured"
    at = f"at {eff['ref']:,} pairs"
    if eff["sign"] == "scoring":
        return f"{at} scoring is more data-efficient (generation needs more pairs to match it)"
    if eff["sign"] == "generation":
        return f"{at} generation is more data-efficient (it matches scoring with fewer pairs)"
    return f"{at} neither is shown more data-efficient (the ratio is not clearly away from 1x)"


def summary_sentence(effs):
    """One sentence with the sign at every reference size."""
    return "; ".join(sign_text(e) for e in effs) + "."


def unlearned_sizes(means, baselines, method):
    """The sizes ({pairs: mean agreement}) at which `method` is within its best profile-blind
    answer, in size order."""
    return [p for p in sorted(means) if within_blind(means[p], baselines, method)]


def data_limited(method, small, large, train):
    """Whether `method` is data-limited, from test agreement per seed at two sizes (small, large:
    (pairs, [agreement per seed])) and its train-split agreement per seed at each ({pairs:
    [agreement]}). Returns {"gain", "gain_clear", "gaps", "limited", "text"}: gain_clear when the
    test agreement at the larger size is above the smaller's beyond both 95% intervals; a gap
    (train - test) of FIT_GAP_POINTS or more at the larger size means the labeler still fits what
    it saw better than what it did not, so more data can still help."""
    (p_small, test_small), (p_large, test_large) = small, large
    m_small, h_small = stats.mean_ci(test_small)
    m_large, h_large = stats.mean_ci(test_large)
    gain = m_large - m_small
    seeds = min(len(test_small), len(test_large))
    gain_clear = seeds > 1 and m_large - h_large > m_small + h_small  # one seed: no interval to clear
    gaps = {p: statistics.fmean(train[p]) - m for p, m in ((p_small, m_small), (p_large, m_large)) if p in train}
    gap_large = gaps.get(p_large)
    name = "scoring" if method == "scoring" else "generation"
    text = (f"{name}: {p_large:,} pairs {'lift' if gain >= 0 else 'move'} test agreement by {100 * gain:+.2f} points "
            f"over {p_small:,}")
    text += (" (beyond both 95% intervals)" if gain_clear else " (one seed: no interval, not shown clear)"
             if seeds < 2 else " (within the seeds' intervals)")
    if gap_large is not None:
        text += (f"; at {p_large:,} it agrees {100 * gap_large:+.2f} points more on its training rows than on test rows")
    fits_better = gap_large is not None and gap_large >= FIT_GAP_POINTS / 100
    limited = gain_clear
    if gain_clear and fits_better:
        text += (f": **data-limited** at {p_small:,} pairs, and still fitting what it saw better at {p_large:,}, so "
                 "more pairs would likely lift it further")
    elif gain_clear:
        text += (f": **data-limited** at {p_small:,} pairs; at {p_large:,} it agrees on unseen rows about as well as "
                 "on seen ones, so beyond it the shape or the recipe, not the pairs, is what limits it")
    elif fits_better:
        text += (f": **not shown data-limited**: more pairs did not clearly help, though it fits its training rows "
                 "better than unseen ones")
    else:
        text += ": **not data-limited** at this size: more pairs did not clearly help and it fits unseen rows as well " \
                "as seen ones"
    return {"gain": gain, "gain_clear": gain_clear, "gaps": gaps, "limited": limited, "text": text}
