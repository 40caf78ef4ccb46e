"""sift.dask.label: label a dask DataFrame or bag on a Dask cluster, partition by partition.

    from distributed import Client
    import sift.dask
    client = Client("tcp://scheduler:8786")          # or LocalCluster(); any Dask scheduler
    scored = sift.dask.label(frame, "models/default-labeler", mode="mis")
    scored.to_parquet("labels/")

Each worker process loads the labeler once (sift.shared_labeler), on the first partition it
scores, and keeps it for every later one; the model directory must exist at the same path on
every worker. Unless `threads` is given, a worker's labeler uses as many OpenMP threads as the
worker has Dask threads (its partitions take turns on the one labeler). A worker that dies
mid-job loses nothing: Dask runs its partitions again elsewhere, and scores depend only on the
row, so the result is the same.
"""
import collections.abc
import os

import dask.bag
import dask.dataframe
import pandas

from sift.batches import RESULT_COLUMNS, check_batch_columns, score_frame
from sift.shared import shared_labeler


def label(data, model_dir, **options):
    """Labels `data` with the labeler in `model_dir` (options: those of sift.Labeler).

    A dask DataFrame with `query` and `items` columns gives the same DataFrame (same
    partitions, same order) with `scores`, `labels` and `error` columns added (sift.batches);
    a dask bag of dicts with "query" and "items" gives a bag of the same dicts with those three
    keys added (an element that is not a dict comes back as {"row": element, ...} with its
    error). Nothing runs until the result is computed.
    """
    model_dir = os.fspath(model_dir)
    if isinstance(data, dask.dataframe.DataFrame):
        check_batch_columns(data.columns)
        meta = data._meta.copy()
        for name in RESULT_COLUMNS:
            meta[name] = pandas.Series(index=meta.index, dtype=object)
        return data.map_partitions(_score_partition, model_dir, options, meta=meta)
    if isinstance(data, dask.bag.Bag):
        return data.map_partitions(_score_records, model_dir, options)
    raise TypeError(f"sift.dask.label takes a dask DataFrame or bag, got {type(data).__name__}")


def _worker_labeler(model_dir, options):
    """This process's labeler; on a Dask worker, `threads` defaults to the worker's thread count."""
    if options.get("threads") is None:
        try:
            from distributed import get_worker
            options = dict(options, threads=get_worker().state.nthreads)
        except (ImportError, ValueError):  # not on a distributed worker (the local schedulers)
            pass
    return shared_labeler(model_dir, **options)


def _score_partition(frame, model_dir, options):
    return score_frame(_worker_labeler(model_dir, options), frame)


def _score_records(records, model_dir, options):
    records = list(records)
    results = _worker_labeler(model_dir, options).score_rows(records)
    return [dict(record if isinstance(record, collections.abc.Mapping) else {"row": record},
                 scores=r.scores, labels=r.labels, error=r.error) for record, r in zip(records, results)]
