"""The package under interpreters other than the one the tests run with: an interpreter that
lacks what the build needs is named, with the missing piece and how to get it, before anything
is compiled (python/CMakeLists.txt), and one without pandas, numpy or dask imports sift and
scores, its pandas/numpy/dask parts saying what to install when used."""
import json
import os
import pathlib
import subprocess
import sys

from conftest import MODEL_DIR, SIFT_BINARY, SOURCE_DIR, bits, reference_outputs, synthetic_rows


def bare_venv(path):
    """A venv of this Python without Debian's site packages (no pytest, numpy, pandas, dask)."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", path], check=True)
    return path / "bin" / "python"


def test_an_interpreter_without_pybind11_fails_before_compiling(tmp_path):
    python = bare_venv(tmp_path / "venv")
    build = tmp_path / "build"
    stale = build / "python" / "sift" / "_native.cpython-399-x86_64-linux-gnu.so"  # another interpreter's
    stale.parent.mkdir(parents=True)
    stale.write_bytes(b"")
    # Debian's pybind11-dev is installed here: the configure step is told not to find it, as on
    # a machine without it.
    configured = subprocess.run(["cmake", "-S", SOURCE_DIR, "-B", build, "-G", "Ninja", "-DCMAKE_BUILD_TYPE=Release",
                                 "-DSIFT_BUILD_TESTS=OFF", "-DSIFT_BUILD_BENCH=OFF", "-DSIFT_BUILD_TRAIN=OFF",
                                 f"-DPython3_EXECUTABLE={python}", "-DCMAKE_DISABLE_FIND_PACKAGE_pybind11=ON"],
                                capture_output=True, text=True)
    assert configured.returncode == 0, configured.stderr
    assert f"Removing {stale}: built for another interpreter" in configured.stderr
    assert not stale.exists()
    built = subprocess.run(["cmake", "--build", build, "--target", "sift_python"], capture_output=True, text=True)
    output = " ".join((built.stdout + built.stderr).split())  # CMake wraps its messages
    assert built.returncode != 0
    version = f"{sys.version_info.major}.{sys.version_info.minor}.{sys.version_info.micro}"
    assert (f"the Python package sift cannot be built for {python} {version}: it lacks pybind11 "
            f"(apt-get install pybind11-dev)") in output  # a venv of Debian's python3: Debian's package
    assert "Building CXX" not in output


def test_sift_imports_and_scores_without_pandas_numpy_or_dask(tmp_path):
    python = bare_venv(tmp_path / "venv")
    rows = synthetic_rows(4, seed=47)
    script = """if True:
        import importlib.util, json, sys
        assert not any(importlib.util.find_spec(name) for name in ("numpy", "pandas", "dask")), "not a bare venv"
        import sift
        labeler = sift.Labeler(sys.argv[1])
        report = {"scores": [r.scores for r in labeler.score_rows(json.loads(sys.argv[2]))]}
        batches = sift.ScoreBatches(sys.argv[1])
        try:
            batches({"query": ["q"], "items": [["a"]]})  # a dict batch: numpy arrays come back
        except ImportError as e:
            report["numpy"] = [str(e), e.name]
        try:
            import sift.dask
        except ImportError as e:
            report["dask"] = [str(e), e.name]
        print(json.dumps(report))
    """
    env = dict(os.environ, PYTHONPATH=str(pathlib.Path(SIFT_BINARY).parent / "python"))
    done = subprocess.run([python, "-c", script, MODEL_DIR, json.dumps(rows)], capture_output=True, text=True,
                          env=env, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert [bits(s) for s in report["scores"]] == [bits(line["scores"]) for line in reference_outputs(rows, tmp_path)]
    message, name = report["numpy"]
    assert name == "numpy" and "sift.ScoreBatches needs numpy" in message and "pip install numpy" in message
    message, name = report["dask"]
    assert name == "dask" and "sift.dask needs dask" in message and "pip install 'dask[dataframe]'" in message
