"""`pip install --no-build-isolation --no-index .` installs a working package offline: into a
fresh virtual environment (with Debian's site packages), from a copy of what the repository
root's pyproject.toml builds, reusing this build's CMake directory (setup.py's
SIFT_CMAKE_BUILD_DIR) so the engine is not rebuilt."""
import json
import os
import pathlib
import shutil
import subprocess
import sys

from conftest import MODEL_DIR, SIFT_BINARY, SOURCE_DIR, bits, reference_outputs, synthetic_rows


def test_pip_installs_the_package_offline(tmp_path):
    source = tmp_path / "source"
    for name in ("pyproject.toml", "setup.py", "python/README.md"):
        (source / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(SOURCE_DIR / name, source / name)
    shutil.copytree(SOURCE_DIR / "python" / "sift", source / "python" / "sift", ignore=shutil.ignore_patterns("__pycache__"))
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", venv], check=True)
    env = dict(os.environ, SIFT_CMAKE_BUILD_DIR=str(pathlib.Path(SIFT_BINARY).parent))
    env.pop("PYTHONPATH", None)  # the installed package, not build/python
    subprocess.run([venv / "bin" / "pip", "install", "--no-build-isolation", "--no-index", source],
                   check=True, capture_output=True, env=env)

    rows = synthetic_rows(5, seed=31)
    script = ("import json, sys, sift; labeler = sift.Labeler(sys.argv[1]); rows = json.loads(sys.argv[2]); "
              "print(json.dumps({'file': sift.__file__, 'scores': [r.scores for r in labeler.score_rows(rows)]}))")
    done = subprocess.run([venv / "bin" / "python", "-c", script, MODEL_DIR, json.dumps(rows)],
                          check=True, capture_output=True, text=True, env=env, cwd=tmp_path)
    installed = json.loads(done.stdout)
    assert pathlib.Path(installed["file"]).is_relative_to(venv)
    assert [bits(s) for s in installed["scores"]] == [bits(line["scores"]) for line in reference_outputs(rows, tmp_path)]
