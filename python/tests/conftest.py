"""What the Python tests share: the bundled labeler, the sift binary, synthetic rows, and the
reference scores for rows: the `sift score` CLI run on the same rows (and `sift batch`, which
must agree with it; every build has it, so a sift without it fails these tests)."""
import json
import os
import pathlib
import random
import subprocess

import pytest

SOURCE_DIR = pathlib.Path(os.environ.get("SIFT_SOURCE_DIR", pathlib.Path(__file__).resolve().parents[2]))
SIFT_BINARY = pathlib.Path(os.environ.get("SIFT_BINARY", SOURCE_DIR / "build" / "sift")).resolve()
MODEL_DIR = str(SOURCE_DIR / "models" / "default-labeler")

WORDS = ("python go rust java kubernetes docker aws gcp sql postgres spark kafka airflow react typescript linux "
         "terraform ansible data platform backend frontend engineer senior staff lead manager years team built "
         "led designed migrated scaled services pipelines billing payments search ranking machine learning "
         "accounting marketing sales design nursing teaching logistics").split()


def synthetic_rows(n, seed, max_items=4):
    """n rows {"query", "items"}: queries of 5-30 words, 1..max_items items of 1-3 words."""
    rng = random.Random(seed)
    return [{"query": " ".join(rng.choices(WORDS, k=rng.randint(5, 30))),
             "items": [" ".join(rng.choices(WORDS, k=rng.randint(1, 3))) for _ in range(rng.randint(1, max_items))]}
            for _ in range(n)]


def run_cli(command, rows, tmp_path, *options):
    """`sift <command> --model MODEL_DIR` on rows (JSON lines): its output lines, parsed."""
    rows_file = tmp_path / f"{command}-rows.jsonl"
    out_file = tmp_path / f"{command}-out.jsonl"
    rows_file.write_text("".join(json.dumps(dict(row, id=i)) + "\n" for i, row in enumerate(rows)))
    out_file.unlink(missing_ok=True)
    done = subprocess.run([SIFT_BINARY, command, "--model", MODEL_DIR, "--input", rows_file, "--output", out_file,
                           *options], capture_output=True)
    lines = [json.loads(line) for line in out_file.read_text().splitlines()]
    # Exit 1 when no row could be scored (docs/cli.md), its error lines written all the same.
    assert done.returncode == 0 or (done.returncode == 1 and all("error" in line for line in lines)), done.stderr
    return lines


def sift_batch_output(input_bytes, tmp_path, *options):
    """The bytes `sift batch` writes for an input file of these bytes."""
    rows_file, out_file = tmp_path / "batch-input.jsonl", tmp_path / "batch-output.jsonl"
    rows_file.write_bytes(input_bytes)
    for done in (out_file, tmp_path / "batch-output.jsonl.progress"):  # a new job each time
        done.unlink(missing_ok=True)
    subprocess.run([SIFT_BINARY, "batch", "--model", MODEL_DIR, "--input", rows_file, "--output", out_file,
                    "--quiet", *options], check=True, capture_output=True)
    return out_file.read_bytes()


def batch_input_lines(rows):
    """JSON lines for `sift batch` and score_lines: the rows with ids and pass-through fields,
    and lines of every kind a file can hold that are not rows."""
    lines = [json.dumps(dict(row, id=f"r{i}", member_id={"n": i, "tags": ["a", "b"]})).encode()
             for i, row in enumerate(rows)]
    lines[1:1] = [
        b"",                                                          # an empty line
        b'{"id": 7, "items": ["a"]}',                                 # no query: the id is echoed
        b'{"query": "q", "items": ["a"]',                             # invalid JSON
        b'{"query": "q", "items": [{"id": 3, "text": "a"}, "b"], "labels": [1, 0], "truth": true}',  # shadowed
        b'{"query": "\xff\xfe", "items": ["a"]}',                      # invalid UTF-8
        b'{"query": "q", "items": ["a"]}\r',                          # CRLF
        json.dumps({"id": "long", "query": "python " * 2100, "items": ["go"]}).encode(),  # too long for the model
    ]
    return lines


def reference_outputs(rows, tmp_path, *options):
    """The CLI's output line per row, in order (an error row is {"line", "error"})."""
    lines = run_cli("score", rows, tmp_path, *options)
    assert len(lines) == len(rows)
    # sift batch writes sift score's lines ("artifact" included), plus the input's other fields;
    # it has no mode generate.
    if "generate" not in options:
        batch_lines = run_cli("batch", rows, tmp_path, *options)
        assert [{key: b.get(key) for key in s} for b, s in zip(batch_lines, lines)] == lines
    return lines


def bits(scores):
    """Each score's exact bits (None stays None: generate mode's unparsed items)."""
    return [None if s is None else float.hex(s) for s in scores]


def assert_bitwise_equal(columns, reference):
    """columns = (scores, labels, errors), one entry per row, against the CLI's lines: scores
    compared exactly, labels, and the error of an error row, in order."""
    assert all(len(column) == len(reference) for column in columns)
    for row, (scores, labels, error, expected) in enumerate(zip(*columns, reference)):
        if "error" in expected:
            assert error == expected["error"], f"row {row}"
            continue
        assert error is None, f"row {row}: {error}"
        assert bits(scores) == bits(expected["scores"]), f"row {row}"
        assert labels == expected["labels"], f"row {row}"


def columns_of(results):
    """sift.Result list -> (scores, labels, errors) lists, the shape assert_bitwise_equal takes."""
    return [r.scores for r in results], [r.labels for r in results], [r.error for r in results]


@pytest.fixture(scope="session")
def model_dir():
    return MODEL_DIR
