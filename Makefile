# The commands a newcomer types. `make test` and `make demo` set up and build first, so on a
# fresh Debian 12 machine (as root) each works as the only command typed.
.PHONY: build python setup test test-all demo bench fuzz sanitize sanitize-e2e clean

JOBS ?= $(shell nproc)
# What building the sift binary and running the demo and the README's Quickstart need (gnuplot
# draws calibrate's curves, curl waits for serve), and what the tests, benchmarks,
# trainer, Python package, fuzzers, label-store server and browser tests add to it.
DEMO_PACKAGES := build-essential cmake ninja-build pkg-config git python3 gnuplot-nox curl \
  nlohmann-json3-dev libcli11-dev libspdlog-dev libfmt-dev libpcre2-dev libutf8proc-dev \
  libsqlite3-dev libpq-dev libssl-dev libcpp-httplib-dev libboost-dev libzstd-dev zlib1g-dev nettle-dev
TEST_PACKAGES := libgtest-dev libgmock-dev libbenchmark-dev libopenblas-dev \
  libtorch-dev python3-torch python3-numpy clang libclang-rt-14-dev postgresql \
  zstd strace python3-pytest \
  python3-setuptools python3-pip python3-dask python3-distributed python3-pandas \
  chromium python3-websocket
# What the Python package adds for Debian's python3 (pip's pybind11 serves another interpreter).
PYTHON_PACKAGES := pybind11-dev python3-dev
APT_PACKAGES := $(DEMO_PACKAGES) $(PYTHON_PACKAGES) $(TEST_PACKAGES)

# Debian's python3 again after a `make python PYTHON=...`: the tests use its pytest, pandas, dask.
build: .setup-done
	cmake --preset release $(ALL_ON) -DPython3_EXECUTABLE=/usr/bin/python3 >/dev/null
	cmake --build build -j $(JOBS)

# The Python package sift, built into build/python for one interpreter, PYTHON (a module built
# for one Python version loads in no other): PYTHONPATH=build/python $(PYTHON) -c "import sift".
# It installs and builds only what the package needs (the engine, not the tests, benchmarks or
# trainer); the configure step says what the interpreter lacks before anything is compiled.
# (`make test` builds it too, for Debian's python3, and runs its pytest tests, CTest label "python".)
PYTHON ?= /usr/bin/python3
PYTHON_ONLY := -DSIFT_BUILD_TESTS=OFF -DSIFT_BUILD_BENCH=OFF -DSIFT_BUILD_TRAIN=OFF -DSIFT_BUILD_PYTHON=ON
python: .setup-python-done
	@command -v $(PYTHON) >/dev/null || { echo "make python: no interpreter $(PYTHON) (PYTHON=/path/to/python3)"; exit 1; }
	cmake --preset release $(PYTHON_ONLY) -DPython3_EXECUTABLE=$(abspath $(shell command -v $(PYTHON))) >/dev/null
	cmake --build build -j $(JOBS) --target sift_python
	@PYTHONPATH=build/python $(PYTHON) -c 'import sift, sys; print(f"make python: sift for {sys.executable} (Python {sys.version.split()[0]}) is in build/python: PYTHONPATH=build/python {sys.executable}")'

# Installs what is missing (idempotent: apt-get runs only when a package is absent).
setup: .setup-done
.setup-done: Makefile tools/setup.sh package-lock.json
	bash tools/setup.sh --npm $(APT_PACKAGES)
	@touch $@
# The Python package's share: the engine's packages and pybind11, no npm, no test packages.
.setup-python-done: Makefile tools/setup.sh
	bash tools/setup.sh $(DEMO_PACKAGES) $(PYTHON_PACKAGES)
	@touch $@
# The demo's share only: no npm, no test or trainer packages.
.setup-demo-done: Makefile tools/setup.sh
	bash tools/setup.sh $(DEMO_PACKAGES)
	@touch $@

# ctest runs $(JOBS) programs at once, so each gets one OpenMP thread (oversubscribed
# OpenMP barriers crawl); the tests that check thread-count invariance set threads themselves.
test: build
	cd build && OMP_NUM_THREADS=1 ctest --output-on-failure -LE 'large|latency' -j $(JOBS) --timeout 900
	$(MAKE) fuzz FUZZ_SECONDS=$(TEST_FUZZ_SECONDS)
	$(MAKE) sanitize-e2e

test-all: build
	cd build && ctest --output-on-failure -j $(JOBS)

# The demo installs and builds only what the sift binary it runs needs; `make test` the rest
# (build configures every component again, so the two share one build folder).
DEMO_OFF := -DSIFT_BUILD_TESTS=OFF -DSIFT_BUILD_BENCH=OFF -DSIFT_BUILD_TRAIN=OFF -DSIFT_BUILD_PYTHON=OFF
ALL_ON := -DSIFT_BUILD_TESTS=ON -DSIFT_BUILD_BENCH=ON -DSIFT_BUILD_TRAIN=ON -DSIFT_BUILD_PYTHON=ON
demo: .setup-demo-done
	cmake --preset release $(DEMO_OFF) >/dev/null
	cmake --build build -j $(JOBS) --target sift
	bash tools/demo.sh

# libFuzzer targets, each run for a bounded time (`make test` gives each TEST_FUZZ_SECONDS,
# which keeps CI within its budget; `make fuzz` alone runs them longer).
FUZZ_SECONDS ?= 60
TEST_FUZZ_SECONDS ?= 15
fuzz: .setup-done
	cmake --preset fuzz >/dev/null
	cmake --build build-fuzz -j $(JOBS) --target fuzz_targets
	bash tools/run_fuzzers.sh build-fuzz $(FUZZ_SECONDS)

sanitize: .setup-done
	cmake --preset sanitize -DSIFT_SANITIZE_KERNELS=ON >/dev/null
	cmake --build build-sanitize -j $(JOBS)
	cd build-sanitize && ctest --output-on-failure -LE 'large|latency' -j $(JOBS)

# The end-to-end scripts against a sift built with ASan + UBSan (part of `make test`): only
# the sift binary is built, and the two scripts that time a float64 reference or build a
# consumer project are left to `make sanitize`, as is label_postgres (the label loop's code
# runs under ASan in label_cli; what it adds is a PostgreSQL server, 3 minutes under ASan)
# and batch_tamper (4.5 minutes under ASan: forty stopped jobs; batch_resume reads progress
# files under ASan here, and the tampered ones run in the plain build). The kernels run
# without ASan here (SIFT_SANITIZE_KERNELS=OFF: the scripts' scoring in 0.28x the CPU time);
# `make sanitize` runs them and their tests under ASan.
SANITIZE_E2E_SKIP := e2e_score_reference|e2e_serve_slow_clients|e2e_install_consumer|e2e_label_postgres|e2e_batch_tamper
sanitize-e2e: .setup-done
	cmake --preset sanitize -DSIFT_BUILD_BENCH=OFF -DSIFT_SANITIZE_KERNELS=OFF >/dev/null
	cmake --build build-sanitize -j $(JOBS) --target sift
	cd build-sanitize && OMP_NUM_THREADS=1 ctest --output-on-failure -L e2e -E '$(SANITIZE_E2E_SKIP)' \
	  -j $(JOBS) --timeout 900

bench: build
	bash bench/run_all.sh

clean:
	rm -rf build build-debug build-sanitize build-fuzz .setup-done .setup-demo-done
