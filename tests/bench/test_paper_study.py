"""The study's file handling (bench/paper/study.py): cells that run side by side share a
working directory, so what two of them write at once must come out whole."""
import concurrent.futures
import os
import sys
import tempfile
import types
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "bench"))
sys.path.insert(0, os.path.join(HERE, "..", "..", "bench", "paper"))
import study  # noqa: E402


class Subset(unittest.TestCase):
    def test_cells_side_by_side_make_one_whole_subset(self):
        with tempfile.TemporaryDirectory() as work:
            source = os.path.join(work, "rows.jsonl")
            with open(source, "w") as f:
                f.writelines(f'{{"row": {i}}}\n' for i in range(20000))
            args = types.SimpleNamespace(quick=True, seeds=None, work=work, sift="sift")
            s = study.Study(args)
            # The first cells of a run (both objectives at the largest size) ask for the same
            # subset at the same moment; 8 threads, many rounds, to meet the race if it is there.
            for round_ in range(20):
                name = f"train_{round_}"
                with concurrent.futures.ThreadPoolExecutor(8) as pool:
                    paths = list(pool.map(lambda _: s.subset(name, source, 15000), range(8)))
                self.assertEqual(set(paths), {os.path.join(work, "subsets", name + ".jsonl")})
                with open(paths[0]) as f:
                    lines = f.readlines()
                self.assertEqual(len(lines), 15000)
                self.assertEqual(lines[-1], '{"row": 14999}\n')
            self.assertEqual(sorted(os.listdir(os.path.join(work, "subsets"))),
                             sorted(f"train_{r}.jsonl" for r in range(20)), "a temporary file was left behind")


if __name__ == "__main__":
    unittest.main()
