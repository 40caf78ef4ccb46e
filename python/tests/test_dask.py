"""sift.dask.label on a real distributed.LocalCluster of 2 worker processes: the CLI's bits in
input order, one labeler per worker process, and a worker killed mid-job changing nothing."""
import os
import signal
import time

import dask.bag
import dask.dataframe
import pandas
import pytest
from distributed import Client, LocalCluster, futures_of

import sift
import sift.dask
from conftest import (MODEL_DIR, assert_bitwise_equal, batch_input_lines, has_sift_batch, reference_outputs,
                      sift_batch_output, synthetic_rows)

TIMEOUT = 240  # seconds: generous, for a loaded 2-core machine


@pytest.fixture(scope="module")
def client(tmp_path_factory):
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                      local_directory=str(tmp_path_factory.mktemp("dask")), death_timeout=TIMEOUT) as cluster:
        with Client(cluster, timeout=TIMEOUT) as client:
            client.wait_for_workers(2, timeout=TIMEOUT)
            yield client


@pytest.fixture(scope="module")
def rows():
    return synthetic_rows(2400, seed=21)


@pytest.fixture(scope="module")
def reference(rows, tmp_path_factory):
    return reference_outputs(rows, tmp_path_factory.mktemp("reference"))


def dask_frame(rows, npartitions):
    frame = pandas.DataFrame(rows)
    frame["member_id"] = range(len(rows))
    return dask.dataframe.from_pandas(frame, npartitions=npartitions, sort=False)


def columns(scored):
    return list(scored["scores"]), list(scored["labels"]), list(scored["error"])


def test_a_dataframe_is_labeled_with_the_clis_bits_in_order(client, rows, reference):
    scored = client.compute(sift.dask.label(dask_frame(rows, npartitions=16), MODEL_DIR)).result(timeout=TIMEOUT)
    assert list(scored["member_id"]) == list(range(len(rows)))
    assert_bitwise_equal(columns(scored), reference)
    # One labeler per worker process, loaded on its first partition and kept for the others.
    loads = client.run(sift.shared.loads_in_this_process)
    assert sorted(loads.values()) == [1, 1]


def test_a_bag_of_dicts_is_labeled(client, rows, reference):
    records = [dict(row, member_id=i) for i, row in enumerate(rows[:300])]
    bag = dask.bag.from_sequence(records, npartitions=5)
    scored = client.compute(sift.dask.label(bag, MODEL_DIR)).result(timeout=TIMEOUT)
    assert [r["member_id"] for r in scored] == list(range(300))
    assert_bitwise_equal(([r["scores"] for r in scored], [r["labels"] for r in scored],
                          [r["error"] for r in scored]), reference[:300])


@pytest.mark.skipif(not has_sift_batch(), reason="this build's sift has no batch subcommand")
def test_lines_come_out_as_sift_batch_writes_them(client, rows, tmp_path):
    # A file read as a bag of lines in several blocks: the joined result is sift batch's file.
    input_bytes = b"".join(line + b"\n" for line in batch_input_lines(rows[:1200]))
    expected = sift_batch_output(input_bytes, tmp_path)
    lines = dask.bag.read_text(str(tmp_path / "batch-input.jsonl"), blocksize=len(input_bytes) // 6,
                               encoding="utf-8", errors="surrogateescape")
    assert lines.npartitions >= 4
    written = client.compute(sift.dask.label_lines(lines, MODEL_DIR)).result(timeout=TIMEOUT)
    assert "".join(line + "\n" for line in written).encode() == expected


def test_a_worker_killed_mid_job_changes_nothing(client, rows, reference):
    # Runs last: the killed worker's nanny starts a new one, which loads its own labeler.
    rows, reference = rows[:1600], reference[:1600]
    scored = client.persist(sift.dask.label(dask_frame(rows, npartitions=32), MODEL_DIR))
    futures = futures_of(scored)
    deadline = time.monotonic() + TIMEOUT
    while True:  # kill a worker that holds unfinished partitions once the job is under way
        assert time.monotonic() < deadline, "no moment to kill a worker in"
        done = sum(f.done() for f in futures)
        busy = [address for address, keys in client.processing().items() if keys]
        if done == len(futures):
            pytest.fail("the job finished before a worker could be killed: give it more rows")
        if done >= 1 and busy:
            break
        time.sleep(0.05)
    victim = busy[0]
    pid = client.run(os.getpid, workers=[victim])[victim]
    os.kill(pid, signal.SIGKILL)

    result = client.compute(scored).result(timeout=TIMEOUT)
    assert victim not in client.scheduler_info()["workers"]  # it really died
    assert done < len(futures)
    assert list(result["member_id"]) == list(range(len(rows)))
    assert_bitwise_equal(columns(result), reference)
