"""sift.Labeler(dir, engines=[...]): rows scored on `sift serve` replicas (started here on
ports they choose, --port 0 --port-file) give the same bits as the local Labeler, from several
Python threads at once, and keep giving them when a replica goes away; a Dask LocalCluster
whose workers are thin clients of the replicas labels with the CLI's bits."""
import concurrent.futures
import os
import signal
import subprocess
import time
import urllib.request

import pytest

import sift
from conftest import MODEL_DIR, SIFT_BINARY, assert_bitwise_equal, reference_outputs, synthetic_rows


class Replica:
    def __init__(self, tmp_path, name):
        port_file = tmp_path / f"{name}.port"
        self.proc = subprocess.Popen([SIFT_BINARY, "serve", "--model", MODEL_DIR, "--threads", "1", "--port", "0",
                                      "--port-file", port_file], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 120
        while not (port_file.exists() and port_file.read_text().endswith("\n")):
            assert self.proc.poll() is None and time.monotonic() < deadline, "sift serve wrote no port"
            time.sleep(0.05)
        self.url = f"http://127.0.0.1:{int(port_file.read_text())}"
        while True:
            try:
                with urllib.request.urlopen(self.url + "/health", timeout=5) as answer:
                    if answer.status == 200:
                        break
            except OSError:
                pass
            assert self.proc.poll() is None and time.monotonic() < deadline, "sift serve did not become healthy"
            time.sleep(0.05)

    def stop(self, sig=signal.SIGTERM):
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
        self.proc.wait(timeout=60)


@pytest.fixture
def replicas(tmp_path):
    started = [Replica(tmp_path, f"r{k}") for k in range(2)]
    yield started
    for replica in started:
        replica.stop()


def test_engines_give_the_local_bits_from_several_threads(replicas):
    rows = synthetic_rows(24, seed=11)
    local = sift.Labeler(MODEL_DIR, threads=1)
    remote = sift.Labeler(MODEL_DIR, engines=[r.url for r in replicas], engine_timeout=60)
    assert remote.engines == [r.url for r in replicas]
    want = [(r.scores, r.labels) for r in local.score_rows(rows)]
    with concurrent.futures.ThreadPoolExecutor(4) as pool:
        got = list(pool.map(lambda row: remote.score(row["query"], row["items"]), rows))
    assert [(r.scores, r.labels) for r in got] == want
    replicas[0].stop(signal.SIGKILL)  # the other replica answers alone
    assert [(r.scores, r.labels) for r in remote.score_rows(rows)] == want


def test_no_engine_answering_is_a_value_error_naming_it(tmp_path):
    replica = Replica(tmp_path, "gone")
    remote = sift.Labeler(MODEL_DIR, engines=[replica.url], engine_timeout=1)
    replica.stop(signal.SIGKILL)
    with pytest.raises(ValueError, match=f"no engine answered for 1 s.*{replica.url}"):
        remote.score("ten years of python", ["python"])


@pytest.mark.parametrize("timeout", [1e12, 86400.5, 0.0, -1.0, 0.0001, float("nan"), float("inf")])
def test_an_engine_timeout_outside_the_clis_range_is_refused_before_any_call(timeout):
    # The range of --engine-timeout (sift/engines.h); 1e12 seconds once overflowed into a
    # negative wait, so the first call failed at once saying no engine had answered.
    with pytest.raises(ValueError, match=r"engine-timeout must be a number of seconds in \[0.001, 86400\], got "):
        sift.Labeler(MODEL_DIR, engines=["http://127.0.0.1:9"], engine_timeout=timeout)


def test_weights_name_how_the_engines_must_hold_them(replicas):
    with pytest.raises(ValueError, match="holds the weights as auto.*asks for q8"):
        sift.Labeler(MODEL_DIR, engines=[replicas[0].url], weights="q8")


def test_dask_workers_label_through_the_engines(replicas, tmp_path):
    pandas = pytest.importorskip("pandas")
    dask_dataframe = pytest.importorskip("dask.dataframe")
    distributed = pytest.importorskip("distributed")
    import sift.dask
    rows = synthetic_rows(300, seed=23)
    reference = reference_outputs(rows, tmp_path)
    frame = dask_dataframe.from_pandas(pandas.DataFrame(rows), npartitions=6, sort=False)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                                  local_directory=str(tmp_path / "dask")) as cluster:
        with distributed.Client(cluster, timeout=240) as client:
            labeled = sift.dask.label(frame, MODEL_DIR, engines=[r.url for r in replicas])
            scored = client.compute(labeled).result(timeout=240)
    assert_bitwise_equal((list(scored["scores"]), list(scored["labels"]), list(scored["error"])), reference)
