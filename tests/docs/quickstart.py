#!/usr/bin/env python3
"""The README's quickstart, run verbatim, does what the README says it does.

    quickstart.py SIFT_BINARY REPO_ROOT

Runs the blocks under README.md's `## Quickstart` (tests/docs/run_page.py, in a copy of the
repository's layout) and checks what they made: one scored line per sample row, a batch
output with the same scores and a complete job record, an HTTP answer with a score per item,
the labeling loop's store holding the profiles, and a dry-run calibration that wrote nothing.
"""
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def check(condition, what):
    if not condition:
        print("FAIL:", what)
        sys.exit(1)


def json_values(text):
    """Every JSON value in text, one after another (curl's answers end without a newline)."""
    decoder, values, i = json.JSONDecoder(), [], 0
    while i < len(text):
        if text[i].isspace():
            i += 1
            continue
        try:
            value, i = decoder.raw_decode(text, i)
            values.append(value)
        except ValueError:
            i = text.find("\n", i) + 1 or len(text)
    return values


def lines_of(path):
    return [json.loads(line) for line in open(path)]


def main():
    sift, repo = sys.argv[1], os.path.abspath(sys.argv[2])
    work = tempfile.mkdtemp(prefix="sift-quickstart-")
    stdout = os.path.join(work, "quickstart.stdout")
    status = subprocess.run([sys.executable, os.path.join(HERE, "run_page.py"), os.path.join(repo, "README.md"), sift,
                             repo, "--section", "Quickstart", "--workdir", work, "--stdout", stdout]).returncode
    if status == 77:
        return 77
    check(status == 0, "the quickstart's commands did not all succeed")

    sample = lines_of(os.path.join(repo, "examples", "sample.jsonl"))
    sift_json = json.load(open(os.path.join(repo, "models", "default-labeler", "sift.json")))
    scores = lines_of(os.path.join(work, "scores.jsonl"))
    check(len(scores) == len(sample), f"scores.jsonl has {len(scores)} lines for {len(sample)} rows")
    for row, out in zip(sample, scores):
        check(out["id"] == row["id"] and len(out["scores"]) == len(row["items"]) == len(out["labels"]),
              f"scores.jsonl: row {row['id']} has no score and label per item: {out}")
        check(out["artifact"]["version"] == sift_json["version"], f"scores.jsonl: artifact {out['artifact']}")

    batch = lines_of(os.path.join(work, "batch.jsonl"))
    check([b["scores"] for b in batch] == [s["scores"] for s in scores],
          "batch.jsonl's scores are not sift score's, row for row")
    progress = json.load(open(os.path.join(work, "batch.jsonl.progress")))
    check(progress.get("complete") is True, f"the batch job's record does not say complete: {progress}")

    values = json_values(open(stdout).read())
    check({"status": "ok"} in values, "no /health answer {\"status\": \"ok\"} in the quickstart's output")
    answers = [v for v in values if isinstance(v, dict) and v.get("mode") == "mis" and "scores" in v]
    check(len(answers) == 1 and len(answers[0]["scores"]) == 2 and len(answers[0]["labels"]) == 2,
          f"no /v1/label answer with a score and a label for each of the 2 items: {answers}")

    store = sqlite3.connect(os.path.join(work, "labels.db"))
    profiles = [json.loads(line)["id"] for line in open(os.path.join(repo, "examples", "profiles.jsonl"))]
    members = sorted(m for (m,) in store.execute("SELECT member FROM members"))
    check(members == sorted(profiles), f"the store's members {members} are not the profiles {profiles}")
    judged = store.execute("SELECT COUNT(*) FROM labels").fetchone()[0]
    check(judged > 0, "the store holds no judged pairs")

    reports = [v for v in values if isinstance(v, dict) and v.get("dry_run") is True]
    check(len(reports) == 1 and 0 <= reports[0]["threshold"] <= 1, f"no dry-run calibration report: {reports}")
    labeler = os.path.join(work, "models", "default-labeler")
    check(json.load(open(os.path.join(labeler, "sift.json"))) == sift_json, "the dry run changed sift.json")
    print(f"quickstart: {len(scores)} rows scored and batched, 1 HTTP answer, {len(members)} profiles and "
          f"{judged} pairs stored, threshold {reports[0]['threshold']:.3f} proposed")
    shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
