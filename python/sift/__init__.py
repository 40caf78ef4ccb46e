"""sift: semantic labeling with a small LLM, over sift's C++ engine.

    import sift
    labeler = sift.Labeler("models/default-labeler")
    result = labeler.score("profile text", ["Python", "Kubernetes"])
    result.scores, result.labels          # P(yes) per item, score >= labeler.threshold

- sift.Labeler / sift.Result: one labeler directory, rows scored in this process
  (Labeler.score_rows packs many rows into forward calls; a bad row gets Result.error).
- sift.ScoreBatches: the batch callable of Ray Data's map_batches and Spark's mapInPandas.
- sift.dask.label: a dask DataFrame or bag labeled with one Labeler per worker process
  (import sift.dask; it needs dask).
- sift.__version__: the version of the engine, as `sift --version` prints it.
"""
from sift._native import Labeler, Result, __version__
from sift.batches import ScoreBatches
from sift.shared import shared_labeler

__all__ = ["Labeler", "Result", "ScoreBatches", "shared_labeler", "__version__"]
