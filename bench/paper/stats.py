"""The study's statistics, pure functions over numbers (bench/paper/report.py uses them).

Seeds: each cell (objective, size) is trained with k seeds; its agreement is the mean over the
seeds with a 95% t-interval, mean +- t_{0.975, k-1} * sd / sqrt(k).

Data efficiency (the paper's §6.2 definition): scoring's mean agreement at a reference size
S_ref is the target; the pairs generation needs to reach it are read off generation's curve of
mean agreement against pairs, interpolated linearly in log(pairs) between the first two sizes
that bracket the target; the ratio is pairs / S_ref. Its interval comes from the seeds: a
bootstrap that draws each cell's k seeds with replacement (every cell independently), recomputes
both curves' means and the ratio, 2,000 times from a fixed generator; the 2.5% and 97.5%
quantiles. A draw in which generation never reaches the target counts as an infinite ratio.
"""
import math
import random
import statistics

# t_{0.975, df} for df = 1..10 (two-sided 95%).
T_975 = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447, 7: 2.365, 8: 2.306, 9: 2.262, 10: 2.228}
BOOTSTRAP_DRAWS = 2000


def mean_ci(values):
    """(mean, half-width of the 95% t-interval); half-width 0 for a single value."""
    m = statistics.fmean(values)
    if len(values) < 2:
        return m, 0.0
    return m, T_975.get(len(values) - 1, 1.96) * statistics.stdev(values) / math.sqrt(len(values))


def pairs_to_reach(curve, target):
    """Pairs at which the curve [(pairs, agreement), ...] (ascending pairs) first reaches target:
    log-linear interpolation between the bracketing sizes; the first size when it already does;
    None when no size does."""
    previous = None
    for pairs, agreement in curve:
        if agreement >= target:
            if previous is None or agreement == previous[1]:
                return float(pairs)
            f = (target - previous[1]) / (agreement - previous[1])
            return math.exp(math.log(previous[0]) + f * (math.log(pairs) - math.log(previous[0])))
        previous = (pairs, agreement)
    return None


def data_efficiency(scoring, generate, reference_pairs, draws=BOOTSTRAP_DRAWS, seed=1):
    """scoring, generate: {pairs: [agreement per seed]}. Returns {"target", "pairs", "ratio",
    "kind", "low", "high"}: the ratio from the seed means (None when generation never reaches the
    target), how it was read ("never": not reached at any size; "at_smallest": already reached at
    the smallest size, so the ratio is an upper bound; "interpolated") and its bootstrap interval
    (inf where draws do not reach it)."""
    def ratio(score_at_ref, generate_means):
        needed = pairs_to_reach(sorted(generate_means.items()), score_at_ref)
        return math.inf if needed is None else needed / reference_pairs

    target = statistics.fmean(scoring[reference_pairs])
    means = {p: statistics.fmean(v) for p, v in generate.items()}
    needed = pairs_to_reach(sorted(means.items()), target)
    rng = random.Random(seed)
    resampled = []
    for _ in range(draws):
        draw = lambda values: statistics.fmean(rng.choice(values) for _ in values)  # noqa: E731
        resampled.append(ratio(draw(scoring[reference_pairs]), {p: draw(v) for p, v in generate.items()}))
    resampled.sort()
    kind = "never" if needed is None else "at_smallest" if needed <= min(generate) else "interpolated"
    return {"target": target, "pairs": needed, "ratio": None if needed is None else needed / reference_pairs,
            "kind": kind,
            "low": resampled[int(0.025 * draws)], "high": resampled[min(draws - 1, int(0.975 * draws))]}


def smallest_within(rows, key, points):
    """The first row (rows ascending by size) whose `key` is within `points` of the best."""
    best = max(r[key] for r in rows)
    return next(r for r in rows if r[key] >= best - points)
