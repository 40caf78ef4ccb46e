#!/usr/bin/env bash
# End to end: a `sift batch` job whose OUT.progress was tampered with or damaged is refused by
# --resume, naming the file, with no byte of OUT, its tail file or OUT.progress changed. Two
# jobs stopped part way (--errors-max 0 at a bad row): a plain OUT past its first MiB (so its
# SHA-256 midstate is not the initial one) and a zstd OUT with lines pending in its tail file.
# Every field of the progress file, nested ones too, is walked through: changed (checksum kept,
# and made again as a careful forger would), removed and of the wrong type (both ways). With
# the checksum made again, a changed field is refused wherever it decides what OUT holds or
# where the job goes on; the fields that only report (input_path, updated_at, the labels,
# errors and prefill token totals) are accepted, and the job then ends byte-identical to an
# uninterrupted run. Then the reproductions: a finished job set to "complete": false with an
# output length of 100 bytes, a resume position inside a line, an earlier sift's progress
# file, and OUT changed by a same-length edit.
# Usage: bash batch_tamper.sh <sift-binary> <source-dir>
set -euo pipefail
SIFT=$1
SRC=$2
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

MODEL=$WORK/labeler
source "$SRC/tests/e2e/lib/tiny_labeler.sh"
make_tiny_labeler "$SIFT" "$SRC" "$MODEL" 5

PYTHONPATH="$SRC/tests/e2e/lib" python3 - "$SIFT" "$MODEL" "$WORK" <<'PY'
import json, os, sys
from batch_checks import Batch, check, make_rows, progress_text, read_bytes, write
sift_bin, model, work = sys.argv[1:4]
batch = Batch(sift_bin, model)
env = dict(os.environ, OMP_NUM_THREADS="1")
Q = ["--threads", "1", "--quiet"]

# 300 rows of about 4 KB (a pass-through note: more than a MiB of output, few rows to score);
# line 280 is a bad row, where --errors-max 0 stops.
lines = make_rows(300, seed=4).splitlines(keepends=True)
lines = [l[:-2] + ', "note": "' + "n" * 4000 + '"}\n' for l in lines]
lines[279] = "not json\n"
rows = write(f"{work}/rows.jsonl", "".join(lines))
reference = {}
for suffix in (".jsonl", ".jsonl.zst"):
    batch.run(rows, f"{work}/reference{suffix}", *Q, env=env)
    reference[suffix] = read_bytes(f"{work}/reference{suffix}")

# Fields that only report: with the checksum made again, a change is taken (OUT cannot show it).
REPORTS = {"input_path", "updated_at", "labels", "errors", "prefill_tokens"}


def relaid(obj, recompute, checksum):
    """The progress file for `obj`: its checksum made again, or `checksum` kept."""
    return progress_text(obj, None if recompute else checksum)


def fields(obj, prefix=""):
    for name, value in obj.items():
        yield prefix + name
        if isinstance(value, dict):
            yield from fields(value, prefix + name + ".")


def parent_of(obj, path):
    *parents, last = path.split(".")
    for name in parents:
        obj = obj[name]
    return obj, last


def changed_value(value):
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return value + 1
    if isinstance(value, float):
        return value / 2
    if isinstance(value, str) and len(value) == 64 and all(c in "0123456789abcdef" for c in value):
        return value[:-1] + ("0" if value[-1] != "0" else "1")  # a digest: another digest
    if isinstance(value, str):
        return value + "0"
    return {"changed": 1}


def stopped_job(suffix):
    output = f"{work}/job{suffix}"
    _, err, code = batch.run(rows, output, "--errors-max", "0", *Q, ok=False, env=env)
    check(code == 1 and "line 280" in err, f"the job should stop at line 280: {err}")
    return output


def files_of(output):
    return {p: read_bytes(p) for p in (output, output + ".progress", output + ".progress.tail") if os.path.exists(p)}


def restore(saved):
    for path, data in saved.items():
        with open(path, "wb") as f:
            f.write(data)


def resume(output, progress_text, refused, what):
    """Writes the progress file, runs --resume; checks refusal (nothing changed) or a right end."""
    with open(output + ".progress", "w") as f:
        f.write(progress_text)
    before = files_of(output)
    _, err, code = batch.run(rows, output, "--resume", "--errors-max", "100", *Q, ok=False, env=env)
    if refused:
        check(code == 1, f"{what}: exit {code}, expected a refusal: {err}")
        check(err.startswith("sift: error: ") and os.path.basename(output) in err, f"{what}: {err}")
        check(files_of(output) == before, f"{what}: a refused resume changed a file")
    else:
        check(code == 0, f"{what}: refused ({code}): {err}")
        check(read_bytes(output) == reference[output[len(f"{work}/job"):]], f"{what}: OUT differs from the reference")
    return err


runs = 0
for suffix in (".jsonl", ".jsonl.zst"):
    output = stopped_job(suffix)
    saved = files_of(output)
    text = saved[output + ".progress"].decode()
    original = json.loads(text)
    check(relaid(original, False, original["checksum"]) == text and relaid(original, True, None) == text,
          "the layout is write_checkpoint's")
    if suffix == ".jsonl":
        check(original["output"]["midstate"]["bytes"] == 1 << 20, f"plain OUT past its first MiB: {original['output']}")
        empty_pending = original["pending"]
    else:
        check(original["pending"]["bytes"] > 0 and original["output"]["bytes"] > 0, f"zstd: {original}")
    for field in fields(original):
        if field == "checksum":
            continue
        for variant in ("changed", "removed", "mistyped"):
            for recompute in (False, True):
                obj = json.loads(text)
                parent, name = parent_of(obj, field)
                if variant == "changed":
                    parent[name] = changed_value(parent[name])
                elif variant == "removed":
                    del parent[name]
                else:
                    parent[name] = 7 if isinstance(parent[name], str) else "7"
                taken = variant == "changed" and recompute and field in REPORTS
                what = f"{suffix} {field} {variant}{' (checksum made again)' if recompute else ''}"
                err = resume(output, relaid(obj, recompute, original["checksum"]), not taken, what)
                if not taken and not recompute:
                    check("checksum" in err or "format" in err, f"{what}: {err}")
                restore(saved)
                runs += 1
    # The checksum itself: another digest, or none.
    no_checksum = {k: v for k, v in original.items() if k != "checksum"}
    for bad in (relaid(original, False, "sha256:" + "0" * 64), json.dumps(no_checksum, indent=1) + "\n"):
        resume(output, bad, True, f"{suffix} checksum")
        restore(saved)

    # A resume position inside a line (the input offset made to agree, the checksum made again).
    obj = json.loads(text)
    for at in (obj["resume"]["restart_offset"] - 7, obj["resume"]["restart_offset"] - 1):
        obj["resume"]["restart_offset"] = obj["input_offset"] = at
        err = resume(output, relaid(obj, True, None), True, f"{suffix} restart inside a line")
        check(f"is not where the first {obj['lines_read']} lines of" in err, err)
        restore(saved)
    # A forged position that skips input lines, every count made to agree (the checksum made
    # again): moved on 6 lines past the bad line 280; then with the lines read and the rows
    # moved on too; then the job made complete at the end of the input. Refused against the
    # input, then against OUT's rows; nothing changed.
    line_ends = [sum(len(l) for l in lines[:n]) for n in range(len(lines) + 1)]
    for lines_read, complete in ((obj["lines_read"], False), (285, False), (len(lines), True)):
        obj = json.loads(text)
        obj["resume"]["restart_offset"] = obj["input_offset"] = line_ends[285 if not complete else len(lines)]
        obj["lines_read"] = obj["rows"] = lines_read
        if complete:
            obj["complete"], obj["pending"] = True, empty_pending
        err = resume(output, relaid(obj, True, None), True, f"{suffix} forged position {lines_read} {complete}")
        expected = (["is not where the first 279 lines of"] if lines_read == original["lines_read"] else
                    [" rows", f".progress records {lines_read}: the progress file was changed"])
        check(all(e in err for e in expected) and "nothing was changed" in err, f"{suffix} forged {lines_read}: {err}")
        restore(saved)
        runs += 1
    # OUT changed by an edit that keeps its length, in its last MiB: refused.
    data = bytearray(saved[output])
    data[-5] ^= 1
    with open(output, "wb") as f:
        f.write(data)
    err = resume(output, text, True, f"{suffix} OUT edited")
    check("SHA-256" in err, err)
    restore(saved)
    # An earlier sift's progress file: refused, saying how to go on.
    old = {k: v for k, v in original.items() if k not in ("output", "pending", "checksum")}
    old.update(format="sift.batch-progress/1", output_bytes=original["output"]["bytes"],
               pending_bytes=original["pending"]["bytes"])
    err = resume(output, json.dumps(old, indent=1) + "\n", True, f"{suffix} earlier sift")
    check("written by an earlier sift" in err and "to start it over" in err, err)
    restore(saved)
    # Untouched, the job resumes and ends as the uninterrupted run.
    resume(output, text, False, f"{suffix} untouched")

# The reproduction: a finished job set to "complete": false and an output of 100 bytes.
output = f"{work}/reference.jsonl"
saved = files_of(output)
obj = json.loads(saved[output + ".progress"])
obj["complete"] = False
obj["output"]["bytes"] = 100
for recompute in (False, True):
    resume(output, relaid(obj, recompute, obj["checksum"]), True,
           f"complete job cut to 100 bytes{' (checksum made again)' if recompute else ''}")
    restore(saved)
check(read_bytes(output) == reference[".jsonl"], "the finished job's output was changed")
print(f"batch_tamper: {runs} tampered progress files refused or harmless, output untouched", file=sys.stderr)
PY
