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


def test_without_dask_the_example_and_sift_dask_say_what_to_install(tmp_path):
    # A Python where dask cannot be imported, as on a machine without it.
    (tmp_path / "dask").mkdir()
    (tmp_path / "dask" / "__init__.py").write_text("raise ModuleNotFoundError(\"No module named 'dask'\", name='dask')\n")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(tmp_path), os.environ.get("PYTHONPATH", "")]))
    done = subprocess.run([sys.executable, SOURCE_DIR / "examples" / "dask_label.py", "--output", tmp_path / "x.jsonl"],
                          capture_output=True, text=True, timeout=60, env=env)
    assert done.returncode == 1, done.stderr
    assert "Traceback" not in done.stderr, done.stderr
    assert "sift.dask needs dask" in done.stderr and "apt-get install python3-dask" in done.stderr, done.stderr
    imported = subprocess.run([sys.executable, "-c", "import sift.dask"], capture_output=True, text=True, env=env)
    assert imported.returncode == 1 and "ModuleNotFoundError: sift.dask needs dask" in imported.stderr, imported.stderr
    assert not (tmp_path / "x.jsonl").exists()
