"""The study's statistics (bench/paper/stats.py) against hand-computed values."""
import math
import os
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "bench", "paper"))
import stats  # noqa: E402


class MeanCi(unittest.TestCase):
    def test_three_seeds_use_t_with_two_degrees_of_freedom(self):
        m, h = stats.mean_ci([0.80, 0.84, 0.88])
        self.assertAlmostEqual(m, 0.84)
        self.assertAlmostEqual(h, 4.303 * 0.04 / math.sqrt(3))

    def test_one_seed_has_no_interval(self):
        self.assertEqual(stats.mean_ci([0.7]), (0.7, 0.0))


class PairsToReach(unittest.TestCase):
    curve = [(1000, 0.70), (10000, 0.80), (100000, 0.90)]

    def test_interpolates_in_log_pairs(self):
        # 0.85 is half way from 10,000 to 100,000 in log(pairs): sqrt(10^4 * 10^5).
        self.assertAlmostEqual(stats.pairs_to_reach(self.curve, 0.85), math.sqrt(1e9), places=3)

    def test_first_size_when_already_reached(self):
        self.assertEqual(stats.pairs_to_reach(self.curve, 0.65), 1000.0)

    def test_none_when_never_reached(self):
        self.assertIsNone(stats.pairs_to_reach(self.curve, 0.95))


class DataEfficiency(unittest.TestCase):
    def test_interpolated_ratio_inside_its_interval(self):
        scoring = {1000: [0.84, 0.85, 0.86], 10000: [0.9, 0.9, 0.9]}
        generate = {1000: [0.70, 0.70, 0.70], 10000: [0.80, 0.80, 0.80], 100000: [0.90, 0.90, 0.90]}
        eff = stats.data_efficiency(scoring, generate, 1000)
        self.assertEqual(eff["kind"], "interpolated")
        self.assertAlmostEqual(eff["pairs"], math.sqrt(1e9), places=3)
        self.assertAlmostEqual(eff["ratio"], math.sqrt(1e9) / 1000, places=6)
        self.assertLessEqual(eff["low"], eff["ratio"])
        self.assertGreaterEqual(eff["high"], eff["ratio"])
        self.assertLess(eff["low"], eff["high"])  # the seeds differ, so the draws do

    def test_never_reached_and_at_the_smallest_size(self):
        generate = {1000: [0.70], 10000: [0.80]}
        never = stats.data_efficiency({1000: [0.95]}, generate, 1000)
        self.assertEqual((never["kind"], never["ratio"], never["high"]), ("never", None, math.inf))
        first = stats.data_efficiency({10000: [0.60]}, generate, 10000)
        self.assertEqual((first["kind"], first["ratio"]), ("at_smallest", 0.1))

    def test_deterministic(self):
        scoring, generate = {1000: [0.8, 0.9]}, {1000: [0.7, 0.75], 10000: [0.85, 0.95]}
        self.assertEqual(stats.data_efficiency(scoring, generate, 1000), stats.data_efficiency(scoring, generate, 1000))


class SmallestWithin(unittest.TestCase):
    def test_first_size_within_the_points_of_the_best(self):
        rows = [{"n": 1, "a": 0.80}, {"n": 2, "a": 0.895}, {"n": 3, "a": 0.90}]
        self.assertEqual(stats.smallest_within(rows, "a", 0.01)["n"], 2)
        self.assertEqual(stats.smallest_within(rows, "a", 0.0)["n"], 3)


if __name__ == "__main__":
    unittest.main()
