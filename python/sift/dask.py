"""sift.dask: label a dask DataFrame or bag on a Dask cluster, partition by partition.

label(df, model_dir) adds scores and labels to a DataFrame (or a bag of dicts);
label_lines(lines, model_dir) turns a bag of JSON lines into the lines `sift batch` writes.

    from distributed import Client
    import sift.dask
    client = Client("tcp://scheduler:8786")          # or LocalCluster(); any Dask scheduler
    scored = sift.dask.label(frame, "models/default-labeler", mode="mis")
    scored.to_parquet("labels/")

Each worker process loads the labeler once (sift.shared_labeler), on the first partition it
scores, and keeps it for every later one; the model directory must exist at the same path on
every worker. A worker's Dask threads score their partitions at the same time on that one
labeler, each on a context of its own; unless `threads` is given, each with one compute thread
(a worker with N Dask threads uses N cores, as Dask means it to). A worker that dies
mid-job loses nothing: Dask runs its partitions again elsewhere, and scores depend only on the
row, so the result is the same.
"""
import collections.abc
import json
import operator
import os

try:
    import dask
    import dask.bag
    import dask.dataframe
    import pandas
except ModuleNotFoundError as missing:
    raise ModuleNotFoundError(
        f"sift.dask needs {missing.name}, which this Python cannot import. On Debian: apt-get install python3-dask "
        f"python3-distributed python3-pandas (and run Debian's python3, or a venv made with --system-site-packages); "
        f"elsewhere: pip install 'dask[dataframe]' distributed", name=missing.name) from missing

from sift.batches import CALIBRATED_COLUMN, RESULT_COLUMNS, check_batch_columns, score_frame
from sift.shared import shared_labeler


def label(data, model_dir, **options):
    """Labels `data` with the labeler in `model_dir` (options: those of sift.Labeler).

    A dask DataFrame with `query` and `items` columns gives the same DataFrame (same
    partitions, same order) with `scores`, `labels` and `error` columns added (sift.batches),
    and `probabilities` when the labeler's sift.json has a calibration map; a dask bag of dicts
    with "query" and "items" gives a bag of the same dicts with those keys added (an element that is not a dict comes back as {"row": element, ...} with its
    error). Nothing runs until the result is computed.
    """
    model_dir = os.fspath(model_dir)
    if isinstance(data, dask.dataframe.DataFrame):
        added = RESULT_COLUMNS + ((CALIBRATED_COLUMN,) if _has_calibration_map(model_dir) else ())
        check_batch_columns(data.columns, added)
        meta = data._meta.copy()
        for name in added:
            meta[name] = pandas.Series(index=meta.index, dtype=object)
        return data.map_partitions(_score_partition, model_dir, options, meta=meta)
    if isinstance(data, dask.bag.Bag):
        return data.map_partitions(_score_records, model_dir, options)
    raise TypeError(f"sift.dask.label takes a dask DataFrame or bag, got {type(data).__name__}")


def label_lines(lines, model_dir, echo=False, **options):
    """A dask bag of JSON lines (as dask.bag.read_text gives them, newlines and all), each a
    row as `sift score` reads it, gives a bag of the lines `sift batch` writes for them, byte
    for byte (str, no newline; other fields passed through, the artifact stamp, an error line
    for a bad line), in order, the lines numbered from 1 across the partitions (with echo=True,
    those of `sift batch --echo`: each the row as read, then its scores):

        sift.dask.label_lines(dask.bag.read_text("rows.jsonl", blocksize="64MiB"), model_dir)
            .to_textfiles("labels/*.jsonl", last_endline=True)

    Each partition's first line number comes from the counts of the partitions before it (a
    chain of small tasks), so nothing runs until the result is computed.
    """
    model_dir = os.fspath(model_dir)
    scored, first_line = [], 1
    for part in lines.map_partitions(list).to_delayed():  # lists: counted and then scored
        scored.append(dask.delayed(_score_lines)(part, first_line, model_dir, options, echo))
        first_line = dask.delayed(operator.add)(first_line, dask.delayed(len)(part))
    return dask.bag.from_delayed(scored)


def _has_calibration_map(model_dir):
    """Whether the labeler's sift.json has a calibration map (the frame's columns are known
    before any worker loads it); a sift.json that cannot be read is the workers' error."""
    try:
        with open(os.path.join(model_dir, "sift.json"), encoding="utf-8") as artifact:
            return json.load(artifact).get("calibration_map") is not None
    except (OSError, ValueError, AttributeError):
        return False


def _worker_labeler(model_dir, options):
    """This process's labeler; on a Dask worker, `threads` defaults to one compute thread per
    Dask thread (the worker's partitions score at once, each on a context of its own)."""
    if options.get("threads") is None:
        try:
            from distributed import get_worker
            get_worker()
            options = dict(options, threads=1)
        except (ImportError, ValueError):  # not on a distributed worker (the local schedulers)
            pass
    return shared_labeler(model_dir, **options)


def _score_partition(frame, model_dir, options):
    return score_frame(_worker_labeler(model_dir, options), frame)


def _score_records(records, model_dir, options):
    records = list(records)
    labeler = _worker_labeler(model_dir, options)
    results = labeler.score_rows(records)
    def scored(record, r):
        out = dict(record if isinstance(record, collections.abc.Mapping) else {"row": record},
                   scores=r.scores, labels=r.labels, error=r.error)
        if labeler.calibrated:
            out[CALIBRATED_COLUMN] = r.probabilities
        return out
    return [scored(record, r) for record, r in zip(records, results)]


def _score_lines(lines, first_line, model_dir, options, echo):
    return _worker_labeler(model_dir, options).score_lines(lines, first_line, echo=echo)
