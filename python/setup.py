"""Builds sift._native with the project's own CMake build (the target sift_python), so that
`pip install --no-build-isolation ./python` works offline with Debian's setuptools and
downloads nothing. The metadata is in pyproject.toml.

SIFT_CMAKE_BUILD_DIR=DIR reuses a build directory (e.g. the repository's build/); by default
the engine is built in setuptools' temporary directory."""
import os
import pathlib
import shutil
import subprocess
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

REPOSITORY = pathlib.Path(__file__).resolve().parent.parent


class CMakeBuild(build_ext):
    def build_extension(self, ext):
        build_dir = pathlib.Path(os.environ.get("SIFT_CMAKE_BUILD_DIR") or self.build_temp).resolve()
        if not (build_dir / "CMakeCache.txt").exists():
            generator = ["-G", "Ninja"] if shutil.which("ninja") else []
            subprocess.run(["cmake", "-S", str(REPOSITORY), "-B", str(build_dir), *generator,
                            "-DCMAKE_BUILD_TYPE=Release", "-DSIFT_BUILD_TESTS=OFF", "-DSIFT_BUILD_BENCH=OFF",
                            "-DSIFT_BUILD_TRAIN=OFF", "-DSIFT_BUILD_PYTHON=ON",
                            f"-DPython3_EXECUTABLE={sys.executable}"], check=True)
        subprocess.run(["cmake", "--build", str(build_dir), "--target", "sift_python", "-j", str(os.cpu_count())],
                       check=True)
        built = sorted((build_dir / "python" / "sift").glob("_native.*"))
        if not built:
            sys.exit(f"setup.py: the CMake build left no python/sift/_native.* in {build_dir}")
        target = pathlib.Path(self.get_ext_fullpath(ext.name))
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(built[0], target)


setup(ext_modules=[Extension("sift._native", sources=[])], cmdclass={"build_ext": CMakeBuild})
