"""examples/dask_label.py runs end to end on the bundled labeler (a LocalCluster of 2 worker
processes) and writes the CLI's scores for examples/sample.jsonl, in order."""
import json
import os
import subprocess
import sys

from conftest import SOURCE_DIR, assert_bitwise_equal, reference_outputs


def test_the_dask_example_labels_the_sample(tmp_path):
    sample = SOURCE_DIR / "examples" / "sample.jsonl"
    output = tmp_path / "labels.jsonl"
    done = subprocess.run([sys.executable, SOURCE_DIR / "examples" / "dask_label.py", "--input", sample,
                           "--output", output], capture_output=True, text=True, timeout=300, cwd=tmp_path,
                          env=dict(os.environ))
    assert done.returncode == 0, done.stderr
    assert "40 rows (0 errors), 800 labels on 2 workers" in done.stderr
    lines = [json.loads(line) for line in output.read_text().splitlines()]
    rows = [json.loads(line) for line in sample.read_text().splitlines()]
    assert [line["id"] for line in lines] == [row["id"] for row in rows]
    sift_json = json.loads((SOURCE_DIR / "models" / "default-labeler" / "sift.json").read_text())
    assert all(line["artifact"] == {"version": sift_json["version"], "threshold": sift_json["threshold"]}
               for line in lines)
    columns = ([line["scores"] for line in lines], [line["labels"] for line in lines], [None] * len(lines))
    assert_bitwise_equal(columns, reference_outputs(rows, tmp_path))
