"""sift.ScoreBatches in the batch protocol of Ray Data's map_batches (a pandas DataFrame or a
dict of numpy arrays per call) and Spark's mapInPandas (an iterator of DataFrames): the other
columns untouched, the rows in order, the CLI's bits. Ray and Spark are not packaged for
Debian, so the protocol is driven here as they drive it: construct once, call per batch."""
import pickle

import numpy
import pandas
import pytest

import sift
from conftest import MODEL_DIR, assert_bitwise_equal, reference_outputs, synthetic_rows


@pytest.fixture(scope="module")
def score_batches():
    # What map_batches(sift.ScoreBatches, fn_constructor_args=(MODEL_DIR,), fn_constructor_kwargs=...) does per actor.
    return sift.ScoreBatches(MODEL_DIR, threads=1)


def frame_of(rows):
    frame = pandas.DataFrame(rows)
    frame["member_id"] = [f"m{i}" for i in range(len(rows))]
    frame.index = [f"r{i}" for i in reversed(range(len(rows)))]  # not 0..n-1: it must be kept
    return frame


def columns(scored):
    return list(scored["scores"]), list(scored["labels"]), list(scored["error"])


def test_a_dataframe_batch_gets_scores_and_labels_in_order(score_batches, tmp_path):
    rows = synthetic_rows(120, seed=11)
    frame = frame_of(rows)
    before = frame.copy(deep=True)
    scored = score_batches(frame)
    assert list(scored.columns) == ["query", "items", "member_id", "scores", "labels", "error"]
    assert list(scored.index) == list(frame.index)
    pandas.testing.assert_frame_equal(scored[["query", "items", "member_id"]], before)
    pandas.testing.assert_frame_equal(frame, before)  # the input batch is not changed
    assert_bitwise_equal(columns(scored), reference_outputs(rows, tmp_path))


def test_a_dict_of_numpy_arrays_batch(score_batches, tmp_path):
    rows = synthetic_rows(60, seed=12)
    items = numpy.empty(len(rows), dtype=object)
    for i, row in enumerate(rows):
        items[i] = numpy.array(row["items"])  # Ray Data's numpy format: an array per cell
    batch = {"query": numpy.array([r["query"] for r in rows]), "items": items, "member_id": numpy.arange(len(rows))}
    scored = score_batches(batch)
    assert list(scored) == ["query", "items", "member_id", "scores", "labels", "error"]
    for name in ("query", "items", "member_id"):
        assert scored[name] is batch[name]
    assert all(isinstance(scored[name], numpy.ndarray) and scored[name].shape == (len(rows),)
               for name in ("scores", "labels", "error"))
    assert_bitwise_equal(columns(scored), reference_outputs(rows, tmp_path))


def test_equal_item_counts_as_a_2d_string_array(score_batches, tmp_path):
    rows = [dict(row, items=row["items"][:1] * 3) for row in synthetic_rows(20, seed=13)]
    batch = {"query": numpy.array([r["query"] for r in rows]), "items": numpy.array([r["items"] for r in rows])}
    assert batch["items"].shape == (20, 3)
    scored = score_batches(batch)
    assert scored["scores"].shape == (20,)  # one list per row, never a 2-D array
    assert_bitwise_equal(columns(scored), reference_outputs(rows, tmp_path))


def test_an_iterator_of_dataframes_as_map_in_pandas_gives(score_batches, tmp_path):
    rows = synthetic_rows(90, seed=14)
    frame = frame_of(rows)
    scored = list(score_batches(iter([frame.iloc[:40], frame.iloc[40:41], frame.iloc[41:]])))
    assert [len(part) for part in scored] == [40, 1, 49]
    assert_bitwise_equal(columns(pandas.concat(scored)), reference_outputs(rows, tmp_path))


def test_a_bad_row_gets_its_error_and_the_batch_goes_on(score_batches, tmp_path):
    rows = synthetic_rows(4, seed=15)
    frame = pandas.DataFrame(rows)
    frame.loc[1, "items"] = None
    frame.loc[2, "query"] = 7
    scored = score_batches(frame)
    assert list(scored["error"][1:3]) == ['field "items" must be a list, got NoneType',
                                         "the query must be a string, got int"]
    assert scored["scores"][1] is None and scored["labels"][2] is None
    good = [rows[0], rows[3]]
    assert_bitwise_equal(columns(scored.iloc[[0, 3]]), reference_outputs(good, tmp_path))


def test_a_batch_without_the_columns_is_refused(score_batches):
    with pytest.raises(ValueError, match="the batch has no column 'items'"):
        score_batches(pandas.DataFrame({"query": ["q"]}))
    with pytest.raises(ValueError, match="the batch already has a column 'scores'"):
        score_batches({"query": numpy.array(["q"]), "items": numpy.array([["a"]]), "scores": numpy.zeros(1)})
    with pytest.raises(ValueError, match="differ in length: 2 and 1"):
        score_batches({"query": numpy.array(["q", "r"]), "items": numpy.array([["a"]])})
    with pytest.raises(TypeError, match="got int"):
        score_batches(3)


def test_pickled_it_ships_the_options_and_reuses_the_processs_labeler(score_batches):
    loads = sift.shared.loads_in_this_process()
    copy = pickle.loads(pickle.dumps(score_batches))
    assert copy.labeler is score_batches.labeler
    assert sift.shared.loads_in_this_process() == loads
    batch = pandas.DataFrame(synthetic_rows(5, seed=16))
    pandas.testing.assert_frame_equal(copy(batch), score_batches(batch))
