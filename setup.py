"""Builds sift._native with the project's own CMake build (the target sift_python, with the
tests, benchmarks and trainer off), so that `pip install --no-build-isolation .` works offline
with Debian's setuptools and downloads nothing. The metadata is in pyproject.toml.

The CMake build goes in build/pip/temp.<platform>-<interpreter>/, kept between installs (a
second install compiles only what changed), configured for the interpreter pip runs
(sys.executable). SIFT_CMAKE_BUILD_DIR=DIR reuses a build directory instead (e.g. the
repository's build/, as `make python` left it); it must be configured for an interpreter whose
modules this one loads (the same Python version), and it is not reconfigured."""
import os
import pathlib
import shutil
import subprocess
import sys
import sysconfig

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

REPOSITORY = pathlib.Path(__file__).resolve().parent


class CMakeBuild(build_ext):
    def build_extension(self, ext):
        reused = os.environ.get("SIFT_CMAKE_BUILD_DIR")
        build_dir = pathlib.Path(reused or self.build_temp).resolve()
        if not reused:  # configured each time: a later install may run another interpreter
            generator = ["-G", "Ninja"] if shutil.which("ninja") else []
            subprocess.run(["cmake", "-S", str(REPOSITORY), "-B", str(build_dir), *generator,
                            "-DCMAKE_BUILD_TYPE=Release", "-DSIFT_BUILD_TESTS=OFF", "-DSIFT_BUILD_BENCH=OFF",
                            "-DSIFT_BUILD_TRAIN=OFF", "-DSIFT_BUILD_PYTHON=ON",
                            f"-DPython3_EXECUTABLE={sys.executable}"], check=True)
        subprocess.run(["cmake", "--build", str(build_dir), "--target", "sift_python", "-j", str(os.cpu_count())],
                       check=True)
        # The module this interpreter loads, not one built for another that the directory holds.
        built = build_dir / "python" / "sift" / f"_native{sysconfig.get_config_var('EXT_SUFFIX')}"
        if not built.exists():
            others = sorted(p.name for p in built.parent.glob("_native*"))
            sys.exit(f"setup.py: {build_dir} holds no {built.name} for {sys.executable} (it holds {others or 'none'}): "
                     f"it is configured for another interpreter; unset SIFT_CMAKE_BUILD_DIR")
        target = pathlib.Path(self.get_ext_fullpath(ext.name))
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(built, target)


# build/ is the CMake build directory of `make`: setuptools' own files go in build/pip/.
setup(ext_modules=[Extension("sift._native", sources=[])], cmdclass={"build_ext": CMakeBuild},
      options={"build": {"build_base": "build/pip"}, "egg_info": {"egg_base": "build/pip"}})
