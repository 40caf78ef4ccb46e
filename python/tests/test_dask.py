"""sift.dask.label on a real distributed.LocalCluster of 2 worker processes: the CLI's bits in
input order, one labeler per worker process, and a worker killed mid-job changing nothing
(the job held at a distributed.Event until the kill, so the kill cannot come too late)."""
import os
import signal
import time
import uuid

import dask.bag
import dask.dataframe
import pandas
import pytest
from distributed import Client, Event, LocalCluster, Lock, futures_of, rejoin, secede, wait

import sift
import sift.dask
from conftest import (MODEL_DIR, assert_bitwise_equal, batch_input_lines, reference_outputs, sift_batch_output,
                      synthetic_rows)

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


def test_lines_come_out_as_sift_batch_writes_them(client, rows, tmp_path):
    # A file read as a bag of lines in several blocks: the joined result is sift batch's file.
    input_bytes = b"".join(line + b"\n" for line in batch_input_lines(rows[:1200]))
    expected = sift_batch_output(input_bytes, tmp_path)
    lines = dask.bag.read_text(str(tmp_path / "batch-input.jsonl"), blocksize=len(input_bytes) // 6,
                               encoding="utf-8", errors="surrogateescape")
    assert lines.npartitions >= 4
    written = client.compute(sift.dask.label_lines(lines, MODEL_DIR)).result(timeout=TIMEOUT)
    assert "".join(line + "\n" for line in written).encode() == expected
    # echo=True: sift batch --echo's file, each line the row as read, then its scores
    expected = sift_batch_output(input_bytes, tmp_path, "--echo")
    written = client.compute(sift.dask.label_lines(lines, MODEL_DIR, echo=True)).result(timeout=TIMEOUT)
    assert "".join(line + "\n" for line in written).encode() == expected


def held_until(gate, first):
    """A partition function: the first partition to reach it goes on, every other one waits
    until the distributed.Event `gate` is set (the distributed.Lock `first` is never released,
    so whatever the order the workers take partitions in, exactly one passes). A waiting task
    secedes from its worker's thread pool, so the one that passed is never starved of a thread."""
    def hold(partition):
        if not Lock(first).acquire(blocking=False):
            secede()
            Event(gate).wait()
            rejoin()
        return partition
    return hold


def test_a_worker_killed_mid_job_changes_nothing(client, rows, reference):
    # Runs last: the killed worker's nanny starts a new one, which loads its own labeler.
    rows, reference = rows[:1600], reference[:1600]
    names = {"gate": f"sift-kill-gate-{uuid.uuid4()}", "first": f"sift-kill-first-{uuid.uuid4()}"}
    frame = dask_frame(rows, npartitions=32)
    frame = frame.map_partitions(held_until(**names), meta=frame._meta)
    scored = client.persist(sift.dask.label(frame, MODEL_DIR))
    futures = futures_of(scored)
    wait(futures, timeout=TIMEOUT, return_when="FIRST_COMPLETED")  # the one partition let through
    deadline = time.monotonic() + TIMEOUT
    while not (busy := [address for address, keys in client.processing().items() if keys]):
        assert time.monotonic() < deadline, "no worker holds a partition"  # a hang detector only
        time.sleep(0.05)
    done = sum(f.done() for f in futures)
    assert done == 1, f"{done} partitions finished while the job was held"
    victim = busy[0]
    pid = client.run(os.getpid, workers=[victim])[victim]
    os.kill(pid, signal.SIGKILL)
    Event(names["gate"], client=client).set()  # the rest of the job may run now

    result = client.compute(scored).result(timeout=TIMEOUT)
    assert victim not in client.scheduler_info()["workers"]  # it really died
    assert list(result["member_id"]) == list(range(len(rows)))
    assert_bitwise_equal(columns(result), reference)
