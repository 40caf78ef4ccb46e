"""Shared pieces of the e2e tests of `sift batch` (tests/e2e/batch_*.sh): input rows, running
`sift batch` and `sift batch merge`, and the checks on outputs and progress files. Imported
by the scripts with tests/e2e/lib on sys.path."""
import gzip
import hashlib
import json
import os
import random
import subprocess
import sys

WORDS = ("python java cloud sql nurse welding cooking kubernetes spark data icu care terraform kafka "
         "german spanish excel finance audit payroll").split()


def check(cond, what):
    if not cond:
        print("FAIL:", what, file=sys.stderr)
        sys.exit(1)


def make_rows(n, seed, bad_every=0):
    """n input lines (text, each ending in "\n"): rows with ids, string and {id, text} items,
    pass-through fields; every bad_every-th line (if set) is a bad row of some kind."""
    rng = random.Random(seed)
    bad = ['not json', '{"id": "bad-query", "query": 7, "items": []}', '{"id": "no-items", "query": "q"}',
           '', '{"id": "bad-utf8", "query": "caf\\udce9", "items": ["x"]}']
    lines = []
    for i in range(n):
        if bad_every and i % bad_every == bad_every - 1:
            lines.append(bad[(i // bad_every) % len(bad)] + "\n")
            continue
        query = " ".join(rng.choice(WORDS) for _ in range(rng.randint(3, 12)))
        items = []
        for k in range(rng.randint(0, 4)):
            text = " ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 2)))
            items.append({"id": f"q{k}", "text": text} if i % 3 == 0 else text)
        row = {"id": f"m{i:06d}", "query": query, "items": items, "member_id": 1000 + i,
               "meta": {"batch": i // 100, "tags": ["a", "b"][: i % 3]}}
        lines.append(json.dumps(row) + "\n")
    return "".join(lines)


def write(path, text):
    with open(path, "w") as f:
        f.write(text)
    return path


def write_gzip_members(path, text, members):
    """text as `members` concatenated gzip members (what bgzip or a concatenation makes)."""
    data = text.encode()
    step = len(data) // members + 1
    with open(path, "wb") as f:
        for at in range(0, len(data), step):
            f.write(gzip.compress(data[at:at + step]))
    return path


def zstd_decompress(path):
    out = subprocess.run(["zstd", "-d", "-c", "-q", path], capture_output=True)
    check(out.returncode == 0, f"zstd -d {path}: {out.stderr.decode()}")
    return out.stdout


def zstd_compress(path, text, *flags):
    with open(path + ".plain", "w") as f:
        f.write(text)
    out = subprocess.run(["zstd", "-q", "-f", *flags, path + ".plain", "-o", path], capture_output=True)
    check(out.returncode == 0, f"zstd: {out.stderr.decode()}")
    os.remove(path + ".plain")
    return path


def read_bytes(path):
    with open(path, "rb") as f:
        return f.read()


def progress_of(output):
    path = output + ".progress"
    if not os.path.exists(path):
        return None
    with open(path) as f:
        return json.load(f)


def progress_text(progress, checksum=None):
    """The text of a progress file holding `progress` (a dict), laid out as sift batch writes it:
    its checksum, the last field, is the SHA-256 of every byte before its line, made for this
    content, or `checksum` as given (what a hand edit that does not recompute it leaves)."""
    fields = {k: v for k, v in progress.items() if k != "checksum"}
    text = json.dumps(fields, indent=1)[:-2] + ",\n"
    if checksum is None:
        checksum = "sha256:" + hashlib.sha256(text.encode()).hexdigest()
    return text + ' "checksum": ' + json.dumps(checksum) + "\n}\n"


class Batch:
    def __init__(self, binary, model):
        self.binary, self.model = binary, model

    def args(self, input_path, output, *extra):
        return [self.binary, "batch", "--model", self.model, "--input", input_path, "--output", output, *extra]

    def run(self, input_path, output, *extra, ok=True, env=None):
        """Runs sift batch; returns (summary dict or None, stderr, exit status)."""
        out = subprocess.run(self.args(input_path, output, *extra), capture_output=True, text=True, env=env)
        if ok:
            check(out.returncode == 0, f"sift batch {extra} failed ({out.returncode}): {out.stderr}")
        lines = out.stdout.splitlines()
        summary = json.loads(lines[-1]) if out.returncode == 0 and lines else None
        return summary, out.stderr, out.returncode

    def merge(self, output, *shards, ok=True, options=()):
        out = subprocess.run([self.binary, "batch", "merge", "--output", output, *shards, *options], capture_output=True,
                             text=True)
        if ok:
            check(out.returncode == 0, f"sift batch merge failed ({out.returncode}): {out.stderr}")
        return out
