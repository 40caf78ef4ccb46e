"""sift.Labeler against the sift CLI: the same bits for the same rows, per-row errors, the
engine's error messages, the GIL released while scoring, threads on one labeler at once, a
labeler loaded before a fork."""
import json
import os
import pathlib
import shutil
import signal
import struct
import subprocess
import sys
import threading
import time
import warnings

import pytest

import sift
from conftest import (MODEL_DIR, SIFT_BINARY, assert_bitwise_equal, batch_input_lines, bits, columns_of,
                      reference_outputs, sift_batch_output, synthetic_rows)


@pytest.fixture(scope="module")
def labeler():
    return sift.Labeler(MODEL_DIR, threads=1)


def test_score_matches_the_cli_bitwise(labeler, tmp_path):
    rows = synthetic_rows(40, seed=1)
    results = [labeler.score(row["query"], row["items"]) for row in rows]
    assert_bitwise_equal(columns_of(results), reference_outputs(rows, tmp_path))


def test_score_rows_matches_the_cli_bitwise_in_order_however_rows_are_packed(labeler, tmp_path):
    rows = synthetic_rows(400, seed=2)
    reference = reference_outputs(rows, tmp_path)
    assert_bitwise_equal(columns_of(labeler.score_rows(rows)), reference)
    # A small call budget packs the rows differently (a few per forward call): same bits.
    small_calls = sift.Labeler(MODEL_DIR, threads=2, max_batch_tokens=200)
    assert_bitwise_equal(columns_of(small_calls.score_rows([(r["query"], r["items"]) for r in rows])), reference)


@pytest.mark.parametrize("mode", ["independent", "prefix", "generate"])
def test_every_mode_matches_the_cli(mode, tmp_path):
    rows = synthetic_rows(12, seed=3)
    results = sift.Labeler(MODEL_DIR, mode=mode, threads=1).score_rows(rows)
    assert_bitwise_equal(columns_of(results), reference_outputs(rows, tmp_path, "--mode", mode))
    if mode == "generate":
        assert all(r.generated_tokens > 0 for r in results)


@pytest.mark.parametrize("truncate, direction", [("query", "right"), ("query", "left"), ("items", "right")])
def test_truncate_cuts_a_row_too_long_as_sift_score_does(truncate, direction, tmp_path):
    long_query = {"query": " ".join(row["query"] for row in synthetic_rows(20, seed=5)), "items": ["Python", "Go"]}
    long_text = " ".join(row["query"] for row in synthetic_rows(20, seed=6))
    long_item = {"query": "Ten years of Python", "items": ["Go", long_text]}
    rows = [long_query, long_item, {"query": "short", "items": ["a"]}]
    reference = reference_outputs(rows, tmp_path, "--max-request-tokens", "300", "--truncate", truncate,
                                  "--truncation-direction", direction)
    labeler = sift.Labeler(MODEL_DIR, threads=1, max_request_tokens=300, truncate=truncate,
                           truncation_direction=direction)
    assert (labeler.truncate, labeler.truncation_direction) == (truncate, direction)
    results = labeler.score_rows(rows)
    assert_bitwise_equal(columns_of(results), reference)
    assert [r.truncated_tokens for r in results] == [line.get("usage", {}).get("truncated_tokens", 0)
                                                    for line in reference]
    assert results[0 if truncate == "query" else 1].truncated_tokens > 0
    uncut = sift.Labeler(MODEL_DIR, threads=1, max_request_tokens=300).score_rows(rows)
    assert "more than the request limit" in uncut[0].error and uncut[2].truncated_tokens == 0


def test_threshold_option_overrides_sift_json(labeler, tmp_path):
    sift_json = json.loads((pathlib.Path(MODEL_DIR) / "sift.json").read_text())
    assert labeler.threshold == sift_json["threshold"]
    strict = sift.Labeler(MODEL_DIR, threshold=0.9, threads=1)
    assert strict.threshold == 0.9
    rows = synthetic_rows(30, seed=4)
    results = strict.score_rows(rows)
    for r in results:
        assert r.labels == [s >= 0.9 for s in r.scores]
    assert_bitwise_equal(columns_of(results), reference_outputs(rows, tmp_path, "--threshold", "0.9"))


def test_weights_option_holds_q8_as_the_cli_does(tmp_path):
    rows = synthetic_rows(30, seed=9)
    q8 = sift.Labeler(MODEL_DIR, threads=1, weights="q8")
    assert q8.weights == "q8" and sift.Labeler(MODEL_DIR, threads=1).weights == "auto"
    reference = reference_outputs(rows, tmp_path, "--weights", "q8")  # sift score and sift batch
    assert_bitwise_equal(columns_of(q8.score_rows(rows)), reference)
    (tmp_path / "f32").mkdir()
    assert bits(reference[0]["scores"]) != bits(reference_outputs(rows[:1], tmp_path / "f32")[0]["scores"])


def test_query_cache_mb_is_the_clis_kv_cache_and_changes_no_score(tmp_path):
    rows = synthetic_rows(30, seed=12)
    rows += [{"query": rows[0]["query"], "items": ["welding"]}]  # a repeated query: its keys may come from the cache
    reference = reference_outputs(rows, tmp_path)
    assert sift.Labeler(MODEL_DIR, threads=1).query_cache_mb == 256  # sift score --kv-cache-mb's default
    for megabytes in (0, 0.5, 64):
        cached = sift.Labeler(MODEL_DIR, threads=1, query_cache_mb=megabytes)
        assert cached.query_cache_mb == megabytes
        assert_bitwise_equal(columns_of(cached.score_rows(rows)), reference)
        assert_bitwise_equal(columns_of([cached.score(r["query"], r["items"]) for r in rows]), reference)


@pytest.mark.parametrize("megabytes", [-1, float("nan"), float("inf"), 2e6])
def test_a_query_cache_budget_outside_the_clis_range_is_a_value_error(megabytes):
    with pytest.raises(ValueError, match=r"^query_cache_mb must be a number in \[0, 1048576\], got "):
        sift.Labeler(MODEL_DIR, query_cache_mb=megabytes)
    with pytest.raises(TypeError):
        sift.Labeler(MODEL_DIR, query_cache_mb="64")


def test_version_and_artifact_are_sift_json(labeler):
    sift_json = json.loads((pathlib.Path(MODEL_DIR) / "sift.json").read_text())
    assert labeler.version == sift_json["version"]
    assert "calibrations" in sift_json
    assert labeler.artifact == sift_json  # as loaded: every field, the calibrations included
    assert labeler.mode == "mis" and labeler.threads == 1


def test_artifact_keeps_unknown_fields_and_a_numeric_version(tmp_path):
    model = tmp_path / "labeler"
    shutil.copytree(MODEL_DIR, model)
    sift_json = json.loads((model / "sift.json").read_text())
    sift_json.update(version=3, owner={"team": "search", "ticket": [1, 2.5, None]})
    (model / "sift.json").write_text(json.dumps(sift_json))
    loaded = sift.Labeler(str(model), threads=1)
    assert loaded.artifact == sift_json
    assert isinstance(loaded.artifact["version"], int)
    assert loaded.version == "3"  # the version stamped on lines is its text


def test_bad_rows_get_their_own_errors_and_the_others_are_scored(labeler, tmp_path):
    good = synthetic_rows(3, seed=5)
    too_long = {"query": "python " * 2100, "items": ["go"]}  # more than the model's 2048 positions
    rows = [good[0], too_long, {"query": "q", "items": ["a", 3]}, {"items": ["a"]}, 42, ("q", "not a list"),
            good[1], ("\ud800", ["a"]), (b"\xff\xfe", ["a"]), ("q", None), good[2]]
    results = labeler.score_rows(rows)
    assert len(results) == len(rows)
    errors = [r.error for r in results]
    reference = reference_outputs([good[0], too_long, good[1], good[2]], tmp_path)
    assert errors[1] == reference[1]["error"]  # the engine's own message, as the CLI prints it
    assert errors[1:6] == [reference[1]["error"], "items[1] must be a string or an object with \"text\", got int", 'missing field "query"',
                           'a row must be a (query, items) pair or a mapping with "query" and "items", got int',
                           'field "items" must be a list, got str']
    assert errors[7].startswith("the query is not valid UTF-8 text")
    assert errors[8].startswith("invalid UTF-8")
    assert errors[9] == 'field "items" must be a list, got NoneType'
    for bad in (1, 2, 3, 4, 5, 7, 8, 9):
        assert results[bad].scores is None and results[bad].labels is None
    scored = [results[0], results[6], results[10]]
    del reference[1]
    assert_bitwise_equal(columns_of(scored), reference)


def test_score_raises_the_engines_error_as_value_error(labeler, tmp_path):
    too_long = {"query": "python " * 2100, "items": ["go"]}
    with pytest.raises(ValueError) as raised:
        labeler.score(too_long["query"], too_long["items"])
    assert str(raised.value) == reference_outputs([too_long], tmp_path)[0]["error"]
    with pytest.raises(ValueError, match="^invalid UTF-8"):
        labeler.score(b"\xff", ["a"])
    with pytest.raises(TypeError, match='^field "items" must be a list, got str$'):
        labeler.score("q", "abc")
    with pytest.raises(TypeError, match='^items\\[0\\] must be a string or an object with "text", got float$'):
        labeler.score("q", [1.5])
    with pytest.raises(TypeError, match='^items\\[1\\] must have a string field "text"$'):
        labeler.score("q", [{"text": "a"}, {"id": 1}])


def cli_error(model_dir):
    """What `sift score --model model_dir` says on stderr when it cannot load."""
    done = subprocess.run([SIFT_BINARY, "score", "--model", model_dir], input=b"", capture_output=True)
    assert done.returncode != 0
    return done.stderr.decode().strip().removeprefix("sift: error: ")


def test_loading_errors_carry_the_engines_message(tmp_path):
    missing = str(tmp_path / "no-such-labeler")
    with pytest.raises(OSError) as raised:
        sift.Labeler(missing)
    assert str(raised.value) == cli_error(missing)

    broken = tmp_path / "broken"
    shutil.copytree(MODEL_DIR, broken)
    (broken / "sift.json").write_text('{"format": "sift.scoring/2", "threshold": 2}')
    with pytest.raises(ValueError) as raised:
        sift.Labeler(broken)
    assert str(raised.value) == cli_error(str(broken))
    assert "sift.json" in str(raised.value)


@pytest.mark.parametrize("options, message", [
    ({"mode": "fast"}, "mode must be mis, independent, prefix or generate, got 'fast'"),
    ({"threads": 0}, "threads must be at least 1, got 0"),
    ({"threads": -2**40}, "threads must be at least 1, got -1099511627776"),
    ({"threshold": 1.5}, "threshold must be a number in \\[0, 1\\], got 1.5"),
    ({"threshold": float("nan")}, "threshold must be a number in \\[0, 1\\], got nan"),
    ({"weights": "q4"}, "weights must be auto, f32, bf16 or q8, got 'q4'"),
    ({"max_batch_tokens": 0}, "max-batch-tokens must be positive, got 0"),
    ({"max_request_tokens": -1}, "max-request-tokens must be positive, got -1"),
    ({"truncate": "middle"}, "truncate must be none, query or items, got 'middle'"),
    ({"truncation_direction": "up"}, "truncation_direction must be right or left, got 'up'"),
    ({"truncate": "query", "mode": "generate"}, "mode generate scores one whole prompt per request"),
])
def test_bad_options_are_value_errors(options, message):
    with pytest.raises(ValueError, match=message):
        sift.Labeler(MODEL_DIR, **options)


@pytest.mark.parametrize("threads", [3000, 2**31, 2**62])
def test_more_threads_than_four_per_core_are_capped_with_a_warning_as_the_cli_caps_them(threads):
    cores = len(os.sched_getaffinity(0))  # the cores OpenMP may use
    most = 4 * cores
    with pytest.warns(UserWarning, match=f"^threads={threads} is more than 4 per core on this machine of "
                                         f"{cores} cores: using {most}$"):
        capped = sift.Labeler(MODEL_DIR, threads=threads)
    assert capped.threads == most
    assert capped.score("ten years of python", ["python"]).scores == \
        sift.Labeler(MODEL_DIR, threads=1).score("ten years of python", ["python"]).scores
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert sift.Labeler(MODEL_DIR, threads=most).threads == most  # up to the limit: as asked


def test_the_gil_is_released_while_scoring():
    # While one thread is inside score_rows, this thread keeps running Python: it reads the
    # scoring thread's CPU clock, and some reading lands well inside the call (between 10%
    # and 90% of the CPU time the call took). With the GIL held, this thread could run only
    # before the call or after it, so every reading would be at one end. The scorer's CPU time
    # is work done, which a busy machine does not stretch; no duration decides anything.
    labeler = sift.Labeler(MODEL_DIR, threads=1)
    rows = synthetic_rows(600, seed=6)
    call, clock_known = {}, threading.Event()

    def score():
        call["clock"] = time.pthread_getcpuclockid(threading.get_ident())
        clock_known.set()
        call["begin"] = time.thread_time()
        labeler.score_rows(rows)
        call["end"] = time.thread_time()

    scorer = threading.Thread(target=score)
    scorer.start()
    clock_known.wait()
    readings = []
    while scorer.is_alive():
        try:
            readings.append(time.clock_gettime(call["clock"]))
        except OSError:  # the thread has ended: its clock is gone
            break
        time.sleep(0.001)
    scorer.join()
    span = call["end"] - call["begin"]
    inside = [r for r in readings if call["begin"] + 0.1 * span < r < call["end"] - 0.1 * span]
    assert inside, (f"none of {len(readings)} readings of the scoring thread's CPU clock fell inside its "
                    f"call of {span:.3f} CPU seconds: the GIL was held")


def run_in_threads(score, n):
    """score(k) on n threads at once; their results, by k."""
    results = [None] * n

    def run(k):
        results[k] = score(k)

    threads = [threading.Thread(target=run, args=(k,)) for k in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return results


def test_threads_on_separate_labelers_give_the_clis_bits(tmp_path):
    rows = synthetic_rows(150, seed=7)
    labelers = [sift.Labeler(MODEL_DIR, threads=1) for _ in range(2)]
    results = run_in_threads(lambda k: labelers[k].score_rows(rows), 2)
    reference = reference_outputs(rows, tmp_path)
    for k in range(2):
        assert_bitwise_equal(columns_of(results[k]), reference)


def test_threads_sharing_one_labeler_score_at_once_with_the_clis_bits(tmp_path):
    # Each thread's call runs on a context of its own over the labeler's one copy of the weights.
    rows = synthetic_rows(150, seed=7)
    labeler = sift.Labeler(MODEL_DIR, threads=1)
    results = run_in_threads(
        lambda k: labeler.score_rows(rows) if k % 2 else [labeler.score(r["query"], r["items"]) for r in rows], 4)
    reference = reference_outputs(rows, tmp_path)
    for k in range(4):
        assert_bitwise_equal(columns_of(results[k]), reference)


def test_a_shared_labeler_is_loaded_once_per_process():
    before = sift.shared.loads_in_this_process()
    first = sift.shared_labeler(MODEL_DIR, threads=1, mode="prefix")
    assert sift.shared_labeler(MODEL_DIR, mode="prefix", threads=1) is first
    assert sift.shared.loads_in_this_process() == before + 1
    assert sift.shared_labeler(MODEL_DIR, threads=1, mode="independent") is not first


def test_rows_as_sift_score_reads_them(labeler, tmp_path):
    # examples/sample.jsonl: items as {"id", "text"} objects, extra fields ("labels", "truth").
    lines = (pathlib.Path(MODEL_DIR).parent.parent / "examples" / "sample.jsonl").read_text().splitlines()
    rows = [json.loads(line) for line in lines]
    assert isinstance(rows[0]["items"][0], dict)
    assert_bitwise_equal(columns_of(labeler.score_rows(rows)), reference_outputs(rows, tmp_path))


def test_results_carry_the_item_ids_given_as_sift_score_writes_them(labeler, tmp_path):
    rows = [{"query": "ten years of python", "items": [{"id": "q7", "text": "Python"}, "Welding", {"id": 3, "text": "Go"}]},
            ("no ids here", ["Python"]), {"query": "broken", "items": [7]}]
    scored = labeler.score_rows(rows)
    assert scored[0].item_ids == ["q7", None, 3]
    assert scored[1].item_ids == [None]
    assert scored[2].error is not None and scored[2].item_ids is None
    assert labeler.score(rows[0]["query"], rows[0]["items"]).item_ids == ["q7", None, 3]
    row_file = tmp_path / "rows.jsonl"
    row_file.write_text(json.dumps(rows[0]) + "\n")
    cli = subprocess.run([SIFT_BINARY, "score", "--model", MODEL_DIR, "--input", row_file], capture_output=True,
                         text=True, check=True)
    assert json.loads(cli.stdout)["item_ids"] == scored[0].item_ids


def test_version_is_the_engines(labeler):
    cli = subprocess.run([SIFT_BINARY, "--version"], capture_output=True, text=True, check=True).stdout
    assert cli.split()[:2] == ["sift", sift.__version__], cli
    pyproject = (pathlib.Path(MODEL_DIR).parent.parent / "pyproject.toml").read_text()
    assert f'version = "{sift.__version__}"' in pyproject, "the package's version is the engine's"


@pytest.mark.parametrize("options, cli_options", [
    ({}, []), ({"threshold": 0.9}, ["--threshold", "0.9"]), ({"mode": "prefix"}, ["--mode", "prefix"])])
def test_score_lines_writes_sift_batchs_bytes(options, cli_options, tmp_path):
    lines = batch_input_lines(synthetic_rows(60, seed=8))
    expected = sift_batch_output(b"".join(line + b"\n" for line in lines), tmp_path, *cli_options)
    labeler = sift.Labeler(MODEL_DIR, threads=1, **options)
    written = labeler.score_lines(lines)
    assert "".join(line + "\n" for line in written).encode() == expected
    # str lines with their newlines, as a text file gives them, and numbered from 1 in two pieces
    texts = [line.decode("utf-8", "surrogateescape") + "\n" for line in lines]
    assert labeler.score_lines(texts[:7]) + labeler.score_lines(texts[7:], first_line=8) == written


def test_score_lines_echo_writes_sift_batch_echos_bytes(labeler, tmp_path):
    rows = synthetic_rows(40, seed=9)
    lines = batch_input_lines(rows)
    expected = sift_batch_output(b"".join(line + b"\n" for line in lines), tmp_path, "--echo")
    written = labeler.score_lines(lines, echo=True)
    assert "".join(line + "\n" for line in written).encode() == expected
    first = json.loads(written[0])
    assert (first["id"], first["query"], first["items"]) == ("r0", rows[0]["query"], rows[0]["items"])
    assert first["member_id"] == {"n": 0, "tags": ["a", "b"]}
    assert first["scores"] == json.loads(labeler.score_lines(lines[:1])[0])["scores"]


def test_score_lines_refuses_what_is_not_a_line(labeler):
    with pytest.raises(TypeError, match="^lines\\[1\\] must be a str or bytes, got dict$"):
        labeler.score_lines(['{"query": "q", "items": []}', {"query": "q"}])
    with pytest.raises(ValueError, match="^first_line counts from 1, got 0$"):
        labeler.score_lines([], first_line=0)
    # Line numbers are 64-bit counts: the last one must fit (it once wrapped to a negative number).
    with pytest.raises(ValueError, match="^first_line 9223372036854775807 and 2 lines: the last line's number is "
                                         "past 2\\*\\*63 - 1$"):
        labeler.score_lines(['{"query": "\ud800", "items": ["a"]}'] * 2, first_line=2**63 - 1)
    last = labeler.score_lines(['{"query": "\ud800", "items": ["a"]}'] * 2, first_line=2**63 - 2)
    assert [json.loads(line)["line"] for line in last] == [2**63 - 2, 2**63 - 1]
    assert json.loads(labeler.score_lines(['{"query": "\ud800", "items": ["a"]}'], first_line=5)[0])["line"] == 5


def test_a_labeler_loaded_before_a_fork_scores_in_the_child(tmp_path):
    """Servers and multiprocessing load a model once and fork workers that share its weights,
    sometimes after scoring in the parent. OpenMP's threads do not survive a fork: the child
    must not wait on them forever, and scores (on one thread) the parent's bits."""
    model = tmp_path / "labeler"
    # Its MLP matrices (2 x 4096 x 256 floats: 8 MiB) are large enough to be faulted in by
    # several threads at load.
    subprocess.run([SIFT_BINARY, "make-checkpoint", "--out", model, "--arch", "qwen3", "--hidden", "256", "--layers",
                    "1", "--heads", "2", "--kv-heads", "1", "--head-dim", "128", "--intermediate", "4096",
                    "--vocab", "512", "--seed", "3"], check=True, capture_output=True)
    shutil.copy(pathlib.Path(__file__).parents[2] / "tests" / "scoring" / "data" / "byte_bpe_tokenizer.json",
                model / "tokenizer.json")
    (model / "sift.json").write_text(json.dumps({
        "format": "sift.scoring/2", "version": "fork-1", "query_template": "{query}", "item_template": "{item}",
        "yes": "YES", "no": "NO", "threshold": 0.5}))
    labeler = sift.Labeler(str(model), threads=2)
    query, items = "ten years of python and go " * 40, ["python", "rust", "go"] * 8
    parent_scores = bits(labeler.score(query, items).scores)  # the parent has run threads before the fork
    child_scores = tmp_path / "child.json"
    pid = os.fork()
    if pid == 0:  # the child: score, write the scores' bits, leave without Python's clean-up
        try:
            child_scores.write_text(json.dumps(bits(labeler.score(query, items).scores)))
        finally:
            os._exit(0)
    deadline = time.monotonic() + 120
    while (done := os.waitpid(pid, os.WNOHANG))[0] == 0 and time.monotonic() < deadline:
        time.sleep(0.05)
    if done[0] == 0:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        pytest.fail("the forked child did not finish scoring in 120 s: it waits on the parent's threads")
    assert child_scores.exists(), "the child wrote no scores"
    assert json.loads(child_scores.read_text()) == parent_scores


@pytest.mark.parametrize("weights", ["auto", "f32", "bf16", "q8"])
def test_the_bundled_labeler_passes_its_self_test(weights):
    assert "self_test" in json.loads((pathlib.Path(MODEL_DIR) / "sift.json").read_text())
    sift.Labeler(MODEL_DIR, threads=1, weights=weights)  # loads: its probes pass


def test_the_library_writes_its_warnings_to_stderr_not_to_the_programs_stdout(tmp_path):
    # A labeler without self-test probes loads with a warning; a script printing JSON lines to
    # its stdout must not find it there.
    model = tmp_path / "labeler"
    shutil.copytree(MODEL_DIR, model)
    sift_json = json.loads((model / "sift.json").read_text())
    del sift_json["self_test"]
    (model / "sift.json").write_text(json.dumps(sift_json))
    script = "import json, sys, sift; sift.Labeler(sys.argv[1], threads=1); print(json.dumps({'loaded': True}))"
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(pathlib.Path(sift.__file__).parent.parent),
                                                       os.environ.get("PYTHONPATH", "")]))
    done = subprocess.run([sys.executable, "-c", script, str(model)], capture_output=True, text=True, env=env,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout == '{"loaded": true}\n'
    assert 'no "self_test" probes' in done.stderr


@pytest.mark.parametrize("change", ["template", "answer", "weight"])
def test_a_labeler_altered_after_its_probes_were_written_is_refused_at_load(change, tmp_path):
    model = tmp_path / "labeler"
    shutil.copytree(MODEL_DIR, model)
    sift_json = json.loads((model / "sift.json").read_text())
    if change == "template":
        sift_json["item_template"] = sift_json["item_template"].replace("Qualification", "Skill")
    elif change == "answer":
        sift_json["yes"] = "Y"  # another single token
    (model / "sift.json").write_text(json.dumps(sift_json))
    if change == "weight":  # one value of the YES row of the (tied, F32) embedding
        data = bytearray((model / "model.safetensors").read_bytes())
        size = int.from_bytes(data[:8], "little")
        tensor = json.loads(data[8:8 + size])["model.embed_tokens.weight"]
        yes = json.loads((model / "tokenizer.json").read_text())["model"]["vocab"]["YES"]
        at = 8 + size + tensor["data_offsets"][0] + 4 * yes * tensor["shape"][1]
        data[at:at + 4] = struct.pack("<f", 7.0)
        (model / "model.safetensors").write_bytes(bytes(data))
    with pytest.raises(ValueError, match="fails its self-test: probe [0-9]+ item [0-9]+ .*log-odds gap"):
        sift.Labeler(str(model), threads=1)
