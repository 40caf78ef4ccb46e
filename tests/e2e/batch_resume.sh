#!/usr/bin/env bash
# End to end: `sift batch` killed with SIGKILL again and again, at random moments and (through
# strace's syscall fault injection) exactly at the fsync and rename of its checkpoints, each
# time continued with --resume, ends with an output byte-identical to one uninterrupted run:
# no row lost, none repeated. After every kill the progress file must describe a prefix of
# the reference output. Once with plain input and output, once with gzip input (several
# members) and zstd output (several frames, so kills land around closing frames too), and
# with "\r\n" and bare "\r" line endings. Where strace cannot trace (not installed, or ptrace
# refused), the random kills are still checked and the script exits 77 (ctest: skipped), so
# the missing kills at fsync and rename are visible.
# Usage: bash batch_resume.sh <sift-binary> <source-dir>
set -euo pipefail
SIFT=$1
SRC=$2
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

MODEL=$WORK/labeler
source "$SRC/tests/e2e/lib/tiny_labeler.sh"
make_tiny_labeler "$SIFT" "$SRC" "$MODEL" 5

PYTHONPATH="$SRC/tests/e2e/lib" python3 - "$SIFT" "$MODEL" "$WORK" <<'PY'
import gzip, os, random, shutil, subprocess, sys, time
from batch_checks import Batch, check, make_rows, write, write_gzip_members, read_bytes, progress_of, zstd_decompress
sift_bin, model, work = sys.argv[1:4]
batch = Batch(sift_bin, model)
rng = random.Random(20261201)
env = dict(os.environ, OMP_NUM_THREADS="1")
STRACE = shutil.which("strace") and subprocess.run(["strace", "-o", "/dev/null", "true"]).returncode == 0
# A checkpoint after every batch of about 15 rows: many checkpoints for the kills to hit.
OPTS = ["--threads", "1", "--checkpoint-seconds", "0", "--max-batch-tokens", "2000", "--quiet"]


def reference(input_path, output):
    start = time.time()
    summary, _, _ = batch.run(input_path, output, *OPTS, env=env)
    return summary, time.time() - start


def plain_content(path):
    return zstd_decompress(path) if path.endswith(".zst") else read_bytes(path)


def check_durable(output, ref_content, is_zstd):
    """After a kill: the progress file (if any) records a state the output holds."""
    p = progress_of(output)
    if p is None:
        return 0
    check(os.path.exists(output) or p["output"]["bytes"] == 0, f"progress without output: {p}")
    data = read_bytes(output) if os.path.exists(output) else b""
    check(len(data) >= p["output"]["bytes"], f"output shorter ({len(data)}) than its checkpoint ({p['output']['bytes']})")
    if is_zstd:
        with open(output + ".checkpointed.zst", "wb") as f:
            f.write(data[: p["output"]["bytes"]])
        framed = zstd_decompress(output + ".checkpointed.zst") if p["output"]["bytes"] else b""
        os.remove(output + ".checkpointed.zst")
        tail = read_bytes(output + ".progress.tail")[: p["pending"]["bytes"]] if p["pending"]["bytes"] else b""
        done = framed + tail
    else:
        done = data[: p["output"]["bytes"]]
    check(ref_content.startswith(done), f"the checkpointed output is not a prefix of the reference: {p}")
    check(done.count(b"\n") == p["rows"] == p["lines_read"], f"rows in the checkpointed output: {p}")
    return p["rows"]


def kill_chain(input_path, output, ref_bytes, ref_content, ref_seconds, is_zstd, kills_wanted, kills=0, injected=0):
    """Kills and resumes one job until it completes; checks its output; when it completed
    before kills_wanted kills in all, runs another job (a fresh output) the same way."""
    runs, done = 0, 0
    total = ref_content.count(b"\n")
    while True:
        extra = [] if runs == 0 else ["--resume"]  # the first run starts the job as a user would
        runs += 1
        args = batch.args(input_path, output, *OPTS, *extra)
        if STRACE and runs % 4 == 0 and kills < kills_wanted:
            # SIGKILL on entering the n-th fsync or rename of this run: mid-checkpoint.
            call = rng.choice(["fsync", "rename"])
            n = rng.randint(1, 40)
            # LeakSanitizer cannot run under ptrace: a traced run that ends normally would fail
            # its leak check (exit 1) in the ASan build, so the traced runs check no leaks.
            traced_env = dict(env, ASAN_OPTIONS=(env.get("ASAN_OPTIONS", "") + ":detect_leaks=0").lstrip(":"))
            out = subprocess.run(["strace", "-f", "-o", "/dev/null", "-e", f"trace={call}",
                                  "-e", f"inject={call}:signal=KILL:when={n}", *args], env=traced_env, capture_output=True)
            if out.returncode == 0:
                break
            check(out.returncode in (137, -9), f"strace run: {out.returncode} {out.stderr[-500:]}")
            kills += 1
            injected += 1
        else:
            proc = subprocess.Popen(args, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
            # Spread the kills still wanted over the work left (a kill during start-up counts too).
            left = ref_seconds * (1 - done / total) + 0.05
            delay = rng.uniform(0.0, 2 * left / (kills_wanted - kills + 2)) if kills < kills_wanted else None
            try:
                _, err = proc.communicate(timeout=delay)
                check(proc.returncode == 0, f"resumed run failed ({proc.returncode}): {err.decode()}")
                break
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.communicate()
                kills += 1
        done = check_durable(output, ref_content, is_zstd)
        check(runs < 400, "the job made no progress")
    got = read_bytes(output)
    check(got == ref_bytes, f"after {kills} kills the output differs from the uninterrupted run "
          f"({len(got)} vs {len(ref_bytes)} bytes)")
    check(not os.path.exists(output + ".progress.tail"), "the tail file is left behind")
    p = progress_of(output)
    check(p["complete"] and p["rows"] == total, f"final progress: {p}")
    if kills < kills_wanted:
        for leftover in (output, output + ".progress"):
            os.remove(leftover)
        return kill_chain(input_path, output, ref_bytes, ref_content, ref_seconds, is_zstd, kills_wanted, kills, injected)
    return kills, injected


# 1. Plain input and output.
rows = write(f"{work}/rows.jsonl", make_rows(2000, seed=1, bad_every=97))
ref = f"{work}/ref.jsonl"
summary, seconds = reference(rows, ref)
check(summary["rows"] == 2000 and summary["errors"] == 20, f"reference: {summary}")
ref_bytes = read_bytes(ref)
kills, injected = kill_chain(rows, f"{work}/killed.jsonl", ref_bytes, ref_bytes, seconds, False, 24)
check(kills >= 20, f"only {kills} kills")
print(f"batch_resume: plain: {kills} kills ({injected} at fsync/rename), output identical", file=sys.stderr)

# 2. gzip input of 5 members, zstd output of several frames (lines made long by a pass-through note).
text = "".join(line[:-2] + ', "note": "' + "n" * 900 + '"}\n' if line.startswith("{") else line
               for line in make_rows(2500, seed=2, bad_every=101).splitlines(keepends=True))
rows_gz = write_gzip_members(f"{work}/rows.jsonl.gz", text, 5)
ref_zst = f"{work}/ref.jsonl.zst"
summary, seconds = reference(rows_gz, ref_zst)
ref_zst_bytes = read_bytes(ref_zst)
ref_content = plain_content(ref_zst)
check(len(ref_content) > 2 * (1 << 20), f"the zstd test needs several frames: {len(ref_content)} bytes of text")
plain_ref = f"{work}/ref_plain.jsonl"
reference(rows_gz, plain_ref)
check(read_bytes(plain_ref) == ref_content, "the zstd output holds other lines than the plain output")
kills, injected = kill_chain(rows_gz, f"{work}/killed.jsonl.zst", ref_zst_bytes, ref_content, seconds, True, 12)
check(kills >= 10, f"only {kills} kills")
print(f"batch_resume: gzip -> zstd: {kills} kills ({injected} at fsync/rename), output identical", file=sys.stderr)

# 3. The rows of (1) with "\r\n" endings (one gzip member per line, each ending between the
#    "\r" and the "\n" of a pair, so every line's read chunk ends at its "\r") and with bare
#    "\r" endings (plain): the same lines, so the same output as (1), through kills and resumes
#    (a resume that started at the "\n" of a "\r\n" would read an extra empty line and shift
#    every line number after it).
lf_text = make_rows(2000, seed=1, bad_every=97)
crlf_pieces = lf_text.replace("\n", "\r\n").encode().split(b"\r")  # each piece after the first starts with "\n"
rows_crlf = f"{work}/rows_crlf.jsonl.gz"
with open(rows_crlf, "wb") as f:
    for k, piece in enumerate(crlf_pieces):
        member = piece + (b"\r" if k + 1 < len(crlf_pieces) else b"")
        if member:
            f.write(gzip.compress(member, compresslevel=1))
rows_cr = write(f"{work}/rows_cr.jsonl", lf_text.replace("\n", "\r"))
for name, path in (("\\r\\n, gzip members cut inside pairs", rows_crlf), ("bare \\r, plain", rows_cr)):
    ref_other = f"{work}/ref_{os.path.basename(path)}.jsonl"
    summary, seconds = reference(path, ref_other)
    check(read_bytes(ref_other) == ref_bytes, f"{name}: the output differs from the \\n input's")
    kills, injected = kill_chain(path, f"{work}/killed_{os.path.basename(path)}.jsonl", ref_bytes, ref_bytes, seconds,
                                 False, 8)
    check(kills >= 6, f"{name}: only {kills} kills")
    print(f"batch_resume: {name}: {kills} kills ({injected} at fsync/rename), output identical", file=sys.stderr)
if not STRACE:
    print("batch_resume: SKIPPED: strace cannot trace here: the kills were at random moments only", file=sys.stderr)
    sys.exit(77)
PY
