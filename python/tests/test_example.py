"""examples/dask_label.py runs end to end on the bundled labeler (a LocalCluster of 2 worker
processes) and writes, for examples/sample.jsonl, the bytes `sift batch` writes."""
import os
import re
import subprocess
import sys

from conftest import SOURCE_DIR, sift_batch_output


def test_the_dask_example_writes_sift_batchs_file(tmp_path):
    sample = SOURCE_DIR / "examples" / "sample.jsonl"
    output = tmp_path / "labels.jsonl"
    done = subprocess.run([sys.executable, SOURCE_DIR / "examples" / "dask_label.py", "--input", sample,
                           "--output", output], capture_output=True, text=True, timeout=300, cwd=tmp_path,
                          env=dict(os.environ))
    assert done.returncode == 0, done.stderr
    assert re.search(r"40 rows \(0 errors\), 800 labels in [2-9] partitions on 2 workers", done.stderr), done.stderr
    assert output.read_bytes() == sift_batch_output(sample.read_bytes(), tmp_path)
