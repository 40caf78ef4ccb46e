"""One Labeler per process per (model directory, options), loaded on first use.

Engines that run user code in long-lived worker processes (Dask workers, Ray actors, Spark
Python workers) call the batch function many times per process; loading the weights once
per process, not once per batch, is what makes that cheap. Threads of one process that ask
for the same labeler share it and score at the same time: each call runs on a context of its
own (a KV cache and a workspace) over the one copy of the weights.
"""
import os
import threading

from sift._native import Labeler

_lock = threading.Lock()
_labelers = {}
_loads = 0


def shared_labeler(model_dir, **options):
    """The process's Labeler(model_dir, **options), loading it the first time it is asked for."""
    key = (os.fspath(model_dir), tuple(sorted((k, tuple(v) if isinstance(v, list) else v) for k, v in options.items())))
    with _lock:
        labeler = _labelers.get(key)
        if labeler is None:
            global _loads
            labeler = Labeler(key[0], **options)
            _labelers[key] = labeler
            _loads += 1
        return labeler


def loads_in_this_process():
    """How many labelers this process has loaded (one per distinct model_dir and options)."""
    return _loads
