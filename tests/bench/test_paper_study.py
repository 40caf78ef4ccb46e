"""The study's file handling (bench/paper/study.py): cells that run side by side share a
working directory, so what two of them write at once must come out whole; its protocol
(study.json) and its profile-blind baselines."""
import concurrent.futures
import json
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


class Protocol(unittest.TestCase):
    def test_the_committed_protocol_preregisters_its_references(self):
        protocol = study.load_protocol()
        for name, cfg in protocol.items():
            refs = cfg["reference_sizes"]
            self.assertTrue(refs, name)
            self.assertGreaterEqual(max(cfg["sizes"]), 2 * max(refs), f"{name}: sizes reach twice the largest reference")
            self.assertEqual(cfg["data_limited_sizes"], [max(refs), max(cfg["sizes"])], name)
        self.assertEqual(protocol["full"]["reference_sizes"], [40000, 120000])
        # Every cell must stop at its plateau: the cap leaves room past the patience.
        full = protocol["full"]
        self.assertGreater(full["max_steps"], 5000 + full["patience"] * full["eval_every"])

    def test_a_reference_that_is_not_a_size_is_refused(self):
        with open(study.PROTOCOL_FILE) as f:
            protocol = json.load(f)["protocol"]
        protocol["quick"]["reference_sizes"] = [1234]
        with tempfile.TemporaryDirectory() as work:
            path = os.path.join(work, "study.json")
            with open(path, "w") as f:
                json.dump({"protocol": protocol}, f)
            with self.assertRaisesRegex(SystemExit, r"reference_sizes \[1234\] are not among its sizes"):
                study.load_protocol(path)


class Baselines(unittest.TestCase):
    def test_rank_and_qualification_tables_from_the_training_split(self):
        def row(items, labels):
            return json.dumps({"query": "p", "items": [{"id": i, "text": i} for i in items], "labels": labels}) + "\n"
        with tempfile.TemporaryDirectory() as work:
            os.makedirs(os.path.join(work, "data"))
            # Rank 0 is mostly YES, rank 1 mostly NO. "a" is YES at rank 0 and NO at rank 1, so
            # per qualification it is a tie (NO), per (rank, qualification) it follows the rank.
            with open(os.path.join(work, "data", "train.jsonl"), "w") as f:
                f.writelines([row(["a", "b"], [1, 0]), row(["b", "a"], [1, 0]), row(["a", "c"], [1, 0]),
                              row(["c", "a"], [0, 0])])
            with open(os.path.join(work, "data", "test.jsonl"), "w") as f:
                f.writelines([row(["a", "b"], [1, 0]), row(["d", "a"], [1, 0])])
            args = types.SimpleNamespace(quick=True, seeds=None, work=work, sift="sift")
            s = study.Study(args)
            b = s.baselines()
        # Test pairs: (0,a)=1 (1,b)=0 (0,d)=1 (1,a)=0.
        self.assertEqual(b["all_no"], 0.5)
        self.assertEqual(b["by_position"], 1.0)       # rank 0 YES (3 of 4), rank 1 NO (1 of 4)
        # a: 3 YES of 5 -> YES; b: 1 of 2 -> NO; d unseen -> its rank's answer (YES).
        self.assertEqual(b["by_qualification"], 0.75)  # (1,a) wrong
        # (0,a) 2 of 2 -> YES; (1,b) unseen -> b's NO; (0,d) unseen -> rank's YES; (1,a) 0 of 2 -> NO.
        self.assertEqual(b["by_rank_qualification"], 1.0)


if __name__ == "__main__":
    unittest.main()
