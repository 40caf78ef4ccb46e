"""The study's verdicts (bench/paper/findings.py) and how the report words them
(bench/paper/report.py), on small synthetic results: the reference sizes are the protocol's, a
curve that never reaches the target says so with the largest size, the sign at each reference
follows the curves, and "data-limited" follows the train and test agreement."""
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "bench"))
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "bench", "paper"))
import findings  # noqa: E402
import report  # noqa: E402


def cell(method, pairs, seed, agreement):
    return {"method": method, "pairs": pairs, "seed": seed, "agreement": agreement, "truth_agreement": agreement,
            "best_step": 100, "steps": 200, "stopped_early": True, "threshold": 0.5, "n_unparsed": 0,
            "n_items": 1000, "order_compared": 300, "order_changed": 0, "inconsistency": 0.0,
            "shuffled_agreement": agreement - 0.02, "validation_best": agreement, "dir": ""}


def results(scoring, generate, reference_sizes, baselines=None):
    """A study.json with the given curves ({pairs: [agreement per seed]})."""
    quality = [cell("scoring", p, i + 1, a) for p, v in scoring.items() for i, a in enumerate(v)]
    quality += [cell("generate", p, i + 1, a) for p, v in generate.items() for i, a in enumerate(v)]
    n_seeds = len(next(iter(scoring.values())))
    config = {"seeds": list(range(1, n_seeds + 1)), "sizes": sorted(scoring), "max_steps": 200, "patience": 3,
              "eval_every": 25}
    if reference_sizes is not None:
        config["reference_sizes"] = reference_sizes
    return {"config": config, "quick": False, "quality": quality, "finetune_recipe": {"min_delta": "0.001"},
            "baselines": baselines or {"all_no": 0.60, "by_position": 0.70, "by_qualification": 0.68,
                                       "by_rank_qualification": 0.72}}


# Scoring rises steeply; generation starts higher and flattens below scoring's top.
SCORING = {1000: [0.70, 0.71, 0.72], 4000: [0.78, 0.79, 0.80], 16000: [0.90, 0.91, 0.92]}
GENERATE = {1000: [0.74, 0.75, 0.76], 4000: [0.80, 0.81, 0.82], 16000: [0.85, 0.86, 0.87]}


def efficiency_text(res):
    by = report.cells(res)
    return "\n".join(report.efficiency_lines(res, by, sorted({p for _, p in by})))


class ReferenceSizes(unittest.TestCase):
    def test_the_listed_sizes_are_used_as_listed(self):
        res = results(SCORING, GENERATE, [4000, 16000])
        self.assertEqual(findings.reference_sizes(res), ([4000, 16000], True))
        text = efficiency_text(res)
        self.assertIn("reference sizes listed in study.json's protocol before the run: 4,000, 16,000 pairs", text)
        # 1,000 is where both are lowest; it is not a reference, so the pre-registered table skips it.
        table = text.split("For context")[0]
        self.assertNotIn("| 1,000 |", table)
        self.assertIn("| 4,000 | 79.00% |", table)

    def test_a_run_without_the_list_reads_the_protocols_and_says_when_it_was_set(self):
        res = results(SCORING, GENERATE, None)
        res["protocol"] = {"full": {"reference_sizes": [16000]}, "quick": {"reference_sizes": [1000]}}
        self.assertEqual(findings.reference_sizes(res), ([16000], False))
        self.assertIn("set after this run's numbers were seen", efficiency_text(res))

    def test_a_reference_without_a_cell_is_not_measured(self):
        res = results(SCORING, GENERATE, [4000, 64000])
        self.assertIn("not measured (no cell at 64,000 pairs in this run)", efficiency_text(res))


class NotReached(unittest.TestCase):
    def test_a_curve_that_never_reaches_the_target_names_the_largest_size(self):
        text = efficiency_text(results(SCORING, GENERATE, [16000]))
        self.assertIn("not reached up to 16,000 pairs (more than 1.0x)", text)
        # ... and with the reference below the largest size, the bound is the largest over the reference.
        low = {p: [a - 0.2 for a in v] for p, v in GENERATE.items()}
        self.assertIn("not reached up to 16,000 pairs (more than 4.0x)", efficiency_text(results(SCORING, low, [4000])))

    def test_a_curve_that_reaches_it_gets_a_ratio_with_its_interval(self):
        text = efficiency_text(results(SCORING, GENERATE, [4000]))
        # Scoring's 79% at 4,000: generation passes it between 1,000 (75%) and 4,000 (81%).
        self.assertRegex(text, r"\| 4,000 \| 79\.00% \| [0-9,]+ \| 0\.[0-9]+x \(95% interval [0-9.]+x to [0-9.]+x\) \|")


class Sign(unittest.TestCase):
    def test_each_reference_gets_its_own_sign(self):
        text = efficiency_text(results(SCORING, GENERATE, [4000, 16000]))
        self.assertIn("**In sum: at 4,000 pairs generation is more data-efficient (it matches scoring with fewer pairs); "
                      "at 16,000 pairs scoring is more data-efficient (generation needs more pairs to match it).**", text)

    def test_an_interval_across_one_says_neither(self):
        # Generation reaches scoring's 4,000-pair mean at about 4,000 pairs, its seeds spread wide.
        generate = {1000: [0.60, 0.75, 0.70], 4000: [0.70, 0.88, 0.79], 16000: [0.85, 0.86, 0.87]}
        effs = [findings.efficiency_at(SCORING, generate, 4000, 3)]
        self.assertEqual(effs[0]["sign"], "neither")
        self.assertEqual(findings.summary_sentence(effs),
                         "at 4,000 pairs neither is shown more data-efficient (the ratio is not clearly away from 1x).")

    def test_one_seed_takes_the_sign_of_the_ratio(self):
        scoring = {p: v[:1] for p, v in SCORING.items()}
        generate = {p: v[:1] for p, v in GENERATE.items()}
        self.assertEqual(findings.efficiency_at(scoring, generate, 4000, 1)["sign"], "generation")
        self.assertEqual(findings.efficiency_at(scoring, generate, 16000, 1)["sign"], "scoring")


class Baselines(unittest.TestCase):
    def test_scoring_is_not_held_to_what_only_the_rank_gives(self):
        base = {"all_no": 0.60, "by_position": 0.75, "by_qualification": 0.70, "by_rank_qualification": 0.78}
        self.assertEqual(findings.best_blind(base, "scoring"), (0.70, "by_qualification"))
        self.assertEqual(findings.best_blind(base, "generate"), (0.78, "by_rank_qualification"))
        self.assertEqual(findings.best_blind({"all_no": 0.6, "by_position": 0.75}, "scoring"), (0.6, "all_no"))

    def test_within_five_points_of_the_best_blind_answer_has_not_learned(self):
        base = {"all_no": 0.60, "by_position": 0.74, "by_qualification": 0.70, "by_rank_qualification": 0.83}
        self.assertTrue(findings.within_blind(0.8799, base, "generate"))
        self.assertFalse(findings.within_blind(0.8801, base, "generate"))
        self.assertFalse(findings.within_blind(0.8799, base, "scoring"))  # scoring's best is 70%
        self.assertEqual(findings.unlearned_sizes({16000: 0.86, 1000: 0.75, 4000: 0.90}, base, "generate"),
                         [1000, 16000])

    def test_validity_runs_at_every_size_and_fails_only_the_largest(self):
        res = results(SCORING, GENERATE, [4000])
        res["baselines"] = {"all_no": 0.60, "by_position": 0.74, "by_qualification": 0.70,
                            "by_rank_qualification": 0.83}
        lines, failures = report.validity_section(res)
        text = "\n".join(lines)
        for p in ("1,000", "4,000", "16,000"):
            self.assertIn(f"| {p} | scoring |", text)
            self.assertIn(f"| {p} | generation |", text)
        # Generation at 16,000 (86%) is within 5 points of the (rank, qualification) table (83%).
        self.assertEqual(len(failures), 1)
        self.assertIn("generation at 16,000 pairs", failures[0])
        self.assertIn("| 1,000 | scoring | 71.00% | each qualification's majority label (70.00%) | +1.00 points", text)


class EfficiencyCaveats(unittest.TestCase):
    def test_generation_near_its_blind_answer_is_said_beside_the_sum(self):
        res = results(SCORING, GENERATE, [4000, 16000],
                      {"all_no": 0.60, "by_position": 0.74, "by_qualification": 0.70, "by_rank_qualification": 0.83})
        text = efficiency_text(res)
        self.assertIn("Generation is less than 5 points above its own best profile-blind answer (the majority label per "
                      "(rank, qualification), 83.00%) at every size", text)
        res["baselines"]["by_rank_qualification"] = 0.78  # 86% at 16,000 pairs is 8 points above it
        self.assertIn("(the majority label per (rank, qualification), 78.00%) at 1,000, 4,000 pairs:",
                      efficiency_text(res))
        res["baselines"].update(by_position=0.65, by_rank_qualification=0.68)
        self.assertNotIn("Generation is less than", efficiency_text(res))

    def test_without_the_order_the_reading_uses_the_shuffled_agreement(self):
        res = results(SCORING, GENERATE, [4000, 16000])
        for r in res["quality"]:
            if r["method"] == "generate":
                r["shuffled_agreement"] = 0.60
        text = efficiency_text(res)
        self.assertIn("at 4,000 pairs generation is more data-efficient", text)  # in BM25 order
        self.assertIn("**Without the order** (generation's agreement on shuffled candidates", text)
        self.assertIn("at 4,000 pairs scoring is more data-efficient (generation needs more pairs to match it); at "
                      "16,000 pairs scoring is more data-efficient (generation needs more pairs to match it) (4,000: "
                      "not reached up to 16,000 pairs (more than 4.0x); 16,000: not reached up to 16,000 pairs", text)
        res["quality"][-1]["shuffled_agreement"] = None  # a run without the measurement: no such line
        self.assertNotIn("Without the order", efficiency_text(res))


class Throughput(unittest.TestCase):
    def offline_results(self):
        res = results(SCORING, GENERATE, [4000])
        mode = lambda rate, prompt, decoded: {"labels_per_s": rate, "prefill_tokens_per_label": prompt,  # noqa: E731
                                             "decoded_tokens_per_label": decoded, "labels_per_s_with_load": rate}
        res["offline"] = {"labels": 1000, "rows": 50, "mis": mode(9000, 20.0, 0.0), "generate": mode(1500, 15.0, 5.0),
                          "independent": mode(2000, 140.0, 0.0)}
        res["serving"] = {"results": [{"n": 20, "mode": m, "alone_ms": 5, "saturated_per_cpu_s": 100, "at_p99": r}
                                      for m, r in (("mis", 900), ("generate", 100), ("independent", 200))]}
        res["step_times"] = {"offline": {"load": [0.5, 0.6]}, "serving": {"load": [0.5, 0.6]}}
        return res

    def test_each_modes_tokens_per_second_and_what_generations_rate_follows(self):
        res = self.offline_results()
        with tempfile.TemporaryDirectory() as out:
            text = "\n".join(report.throughput_section(res, out))
        self.assertIn("| generate | 1,500 | 1.00x | 15.0 | 5.0 | 30,000 | 1,500 |", text)
        self.assertIn("mis runs 180,000 tokens/s and independent 280,000, both prefill: independent's 7.0x the prompt "
                      "tokens per label cost it 4.5x in labels/s. Generation runs 30,000 tokens/s, 6.0x fewer than "
                      "mis: its 5.0 decoded tokens per label are sequential steps", text)
        del res["offline"]["generate"]["prefill_tokens_per_label"]  # a run before tokens per label: no such line
        with tempfile.TemporaryDirectory() as out:
            self.assertNotIn("What a token costs", "\n".join(report.throughput_section(res, out)))


class DataLimited(unittest.TestCase):
    def test_a_clear_gain_is_data_limited(self):
        v = findings.data_limited("scoring", (120000, [0.86, 0.865, 0.862]), (240000, [0.90, 0.905, 0.902]),
                                  {120000: [0.93, 0.93, 0.93], 240000: [0.93, 0.935, 0.93]})
        self.assertTrue(v["limited"])
        self.assertIn("**data-limited** at 120,000 pairs", v["text"])
        self.assertIn("+4.00 points over 120,000", v["text"])

    def test_no_gain_and_no_gap_is_not_data_limited(self):
        v = findings.data_limited("generate", (120000, [0.85, 0.86, 0.855]), (240000, [0.853, 0.857, 0.856]),
                                  {120000: [0.86, 0.86, 0.86], 240000: [0.86, 0.86, 0.86]})
        self.assertFalse(v["limited"])
        self.assertIn("**not data-limited**", v["text"])
        self.assertTrue(v["text"].startswith("generation:"))

    def test_one_seed_is_never_clear(self):
        v = findings.data_limited("scoring", (4000, [0.71]), (16000, [0.72]), {4000: [0.72], 16000: [0.73]})
        self.assertFalse(v["gain_clear"])
        self.assertIn("(one seed: no interval, not shown clear)", v["text"])

    def test_the_report_puts_train_and_test_side_by_side(self):
        res = results(SCORING, GENERATE, [4000])
        res["config"].update(data_limited_sizes=[4000, 16000], train_eval_rows=50)
        for r in res["quality"]:
            if r["pairs"] in (4000, 16000):
                r["train_agreement"] = r["agreement"] + 0.03
        text = "\n".join(report.data_limited_section(res))
        self.assertIn("| scoring | 4,000 | 82.00% | 79.00% ± 2.48 | +3.00 points |", text)
        self.assertIn("scoring: 16,000 pairs lift test agreement by +12.00 points over 4,000 (beyond both 95% "
                      "intervals)", text)
        self.assertNotIn("Not measured", text)
        res["config"]["data_limited_sizes"] = [4000]
        self.assertIn("Not measured in this run", "\n".join(report.data_limited_section(res)))


class WholeReport(unittest.TestCase):
    def test_the_rq1_table_has_generation_shuffled_for_every_cell(self):
        res = results(SCORING, GENERATE, [4000, 16000])
        with tempfile.TemporaryDirectory() as out:
            text = "\n".join(report.quality_section(res, out))
        self.assertIn("| generation shuffled |", text)
        self.assertIn("| 16,000 | 91.00% ± 2.48 | 86.00% ± 2.48 | 84.00% ± 2.48 |", text)


if __name__ == "__main__":
    unittest.main()
