"""sift.ScoreBatches: labels batches in the shape Ray Data's map_batches and Spark's
mapInPandas expect.

A batch is a pandas DataFrame or a dict of numpy arrays (Ray Data's "numpy" batch format)
with a `query` column (one str per row) and an `items` column (a list or array of str per
row), plus any other columns. The result is the same rows in the same order, the other
columns untouched, with three columns added:

    scores : list of float per row, P(yes) per item
    labels : list of bool per row, score >= the labeler's threshold (or probability >= it,
             when sift.json's threshold_on is "probability")
    error  : None, or what was wrong with the row (then its scores and labels are None)

and, when the labeler has a calibration map (Labeler.calibrated), a fourth:

    probabilities : list of float per row, the calibrated probability per item

The rows of one batch go to Labeler.score_rows together, so short rows share forward calls.
"""
import collections.abc
import importlib
import os
import sys

from sift.shared import shared_labeler

RESULT_COLUMNS = ("scores", "labels", "error")
CALIBRATED_COLUMN = "probabilities"  # added too when the labeler has a calibration map


def optional_module(name):
    """numpy or pandas, imported when a batch needs it (import sift works without them), or
    an ImportError that names it and says how to install it."""
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as missing:
        raise ModuleNotFoundError(
            f"sift.ScoreBatches needs {name}, which this Python ({sys.executable}) cannot import: "
            f"pip install {name} (Debian's python3: apt-get install python3-{name})", name=name) from missing


def added_columns(labeler):
    """The columns scoring adds with this labeler."""
    return RESULT_COLUMNS + ((CALIBRATED_COLUMN,) if labeler.calibrated else ())


def check_batch_columns(columns, added=RESULT_COLUMNS):
    """ValueError unless the batch has query and items and none of the `added` columns."""
    names = list(columns)
    for needed in ("query", "items"):
        if needed not in names:
            raise ValueError(f"the batch has no column '{needed}' (its columns: {names})")
    for added in added:
        if added in names:
            raise ValueError(f"the batch already has a column '{added}', which scoring adds")


def result_columns(results, labeler):
    """sift.Result per row -> the lists of the added columns (added_columns' order)."""
    columns = [[r.scores for r in results], [r.labels for r in results], [r.error for r in results]]
    if labeler.calibrated:
        columns.append([r.probabilities for r in results])
    return columns


def score_frame(labeler, frame):
    """A pandas DataFrame with the result columns added (a new frame; `frame` is not changed)."""
    pandas = optional_module("pandas")
    check_batch_columns(frame.columns, added_columns(labeler))
    results = labeler.score_rows(zip(frame["query"], frame["items"]))
    scored = frame.copy(deep=False)
    for name, values in zip(added_columns(labeler), result_columns(results, labeler)):
        scored[name] = pandas.Series(values, index=frame.index, dtype=object)
    return scored


def score_columns(labeler, columns):
    """A dict of numpy arrays with the result columns added, as object arrays of lists."""
    numpy = optional_module("numpy")
    check_batch_columns(columns.keys(), added_columns(labeler))
    if len(columns["query"]) != len(columns["items"]):
        raise ValueError(f"the batch's query and items columns differ in length: "
                         f"{len(columns['query'])} and {len(columns['items'])}")
    results = labeler.score_rows(zip(columns["query"], columns["items"]))
    scored = dict(columns)
    for name, values in zip(added_columns(labeler), result_columns(results, labeler)):
        array = numpy.empty(len(values), dtype=object)  # filled one by one: equal-length lists must not become 2-D
        for i, value in enumerate(values):
            array[i] = value
        scored[name] = array
    return scored


class ScoreBatches:
    """A callable class for Ray Data's map_batches and Spark's mapInPandas.

    Constructed once per worker: it loads the labeler then (once per process, see
    sift.shared_labeler; pickling it ships only model_dir and the options). Called with a
    batch (a pandas DataFrame or a dict of numpy arrays) it returns the batch with scores,
    labels and error added; called with an iterator of DataFrames (mapInPandas) it returns an
    iterator of scored DataFrames.
    """

    def __init__(self, model_dir, **options):
        self.model_dir = os.fspath(model_dir)
        self.options = options
        self.labeler = shared_labeler(self.model_dir, **options)

    def __call__(self, batch):
        pandas = sys.modules.get("pandas")  # a DataFrame means pandas is imported already
        if pandas is not None and isinstance(batch, pandas.DataFrame):
            return score_frame(self.labeler, batch)
        if isinstance(batch, collections.abc.Mapping):
            return score_columns(self.labeler, batch)
        if isinstance(batch, collections.abc.Iterator):
            return map(self, batch)
        raise TypeError(f"a batch must be a pandas DataFrame, a dict of arrays or an iterator of DataFrames, "
                        f"got {type(batch).__name__}")

    def __getstate__(self):
        return {"model_dir": self.model_dir, "options": self.options}

    def __setstate__(self, state):
        self.__init__(state["model_dir"], **state["options"])
