"""A labeler with a calibration map (sift.json's calibration_map, threshold_on probability):
sift.Labeler's results and DataFrames carry the calibrated probabilities of `sift score`, the
scores stay the bits of the labeler without a map, the labels follow the probability, and
score_lines writes `sift batch`'s bytes. Without a map there are no probabilities."""
import json
import math
import shutil
import subprocess

import pandas
import pytest

import sift
from conftest import MODEL_DIR, SIFT_BINARY, batch_input_lines, synthetic_rows

PLATT = {"format": "sift.calibration_map/1", "method": "platt", "parameters": {"a": 0.8, "b": -0.3}}


def platt(p):  # docs/scoring.md: sigmoid(a * logit(p) + b), the logit clamped to [-40, 40]
    z = -40.0 if p <= 0 else 40.0 if p >= 1 else max(-40.0, min(40.0, math.log(p) - math.log1p(-p)))
    u = 0.8 * z - 0.3
    return 1 / (1 + math.exp(-u)) if u >= 0 else math.exp(u) / (1 + math.exp(u))


@pytest.fixture(scope="module")
def calibrated_dir(tmp_path_factory):
    model = tmp_path_factory.mktemp("calibrated") / "labeler"
    shutil.copytree(MODEL_DIR, model)  # the bundled labeler itself is never written
    artifact = json.loads((model / "sift.json").read_text())
    artifact.update(calibration_map=PLATT, threshold_on="probability", threshold=0.5)
    (model / "sift.json").write_text(json.dumps(artifact))
    return model


def test_results_carry_probabilities_and_unchanged_scores(calibrated_dir, tmp_path):
    rows = synthetic_rows(30, seed=21)
    plain = sift.Labeler(MODEL_DIR, threads=1)
    calibrated = sift.Labeler(calibrated_dir, threads=1)
    assert calibrated.calibrated and calibrated.threshold_on == "probability"
    assert not plain.calibrated and plain.threshold_on == "score"
    rows_file = tmp_path / "rows.jsonl"
    rows_file.write_text("".join(json.dumps(row) + "\n" for row in rows))
    cli = [json.loads(line) for line in subprocess.run(
        [SIFT_BINARY, "score", "--model", calibrated_dir, "--input", rows_file], capture_output=True, check=True,
        text=True).stdout.splitlines()]
    for want, got, line in zip(plain.score_rows(rows), calibrated.score_rows(rows), cli):
        assert want.probabilities is None
        assert got.scores == want.scores  # the same bits: floats compare exactly
        assert got.probabilities == line["probabilities"]
        assert got.labels == [p >= 0.5 for p in got.probabilities]
        for s, p in zip(got.scores, got.probabilities):
            assert p == pytest.approx(platt(s), abs=1e-12)
    assert "probabilities=" in repr(calibrated.score(rows[0]["query"], rows[0]["items"]))


def test_score_lines_are_sift_batch_bytes(calibrated_dir, tmp_path):
    lines = batch_input_lines(synthetic_rows(20, seed=22))
    rows_file, out_file = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    rows_file.write_bytes(b"".join(line + b"\n" for line in lines))
    subprocess.run([SIFT_BINARY, "batch", "--model", calibrated_dir, "--input", rows_file, "--output", out_file,
                    "--quiet"], check=True, capture_output=True)
    written = sift.Labeler(calibrated_dir, threads=1).score_lines(lines)
    assert "".join(line + "\n" for line in written).encode() == out_file.read_bytes()
    assert all("probabilities" in json.loads(line) for line in written if "error" not in json.loads(line))


def test_a_dataframe_gets_a_probabilities_column_only_with_a_map(calibrated_dir):
    rows = synthetic_rows(10, seed=23)
    frame = pandas.DataFrame(rows)
    scored = sift.ScoreBatches(calibrated_dir, threads=1)(frame)
    assert list(scored.columns) == ["query", "items", "scores", "labels", "error", "probabilities"]
    for scores, probabilities in zip(scored["scores"], scored["probabilities"]):
        assert probabilities == [pytest.approx(platt(s), abs=1e-12) for s in scores]
    plain = sift.ScoreBatches(MODEL_DIR, threads=1)(frame)
    assert list(plain.columns) == ["query", "items", "scores", "labels", "error"]
    with pytest.raises(ValueError, match="probabilities"):
        sift.ScoreBatches(calibrated_dir, threads=1)(scored.drop(columns=["scores", "labels", "error"]))
