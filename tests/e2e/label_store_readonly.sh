#!/usr/bin/env bash
# End to end: `sift labels get` and `sift labels export` read a SQLite label store the user
# may not write, and change nothing in it or beside it:
#  - a read-only store file in a folder the user may write;
#  - a store in a folder the user may not write (no -wal beside it: read as immutable);
#  - the same folder while a writer holds the store open with commits still in its -wal:
#    those commits are read too (the store is not taken for immutable then).
# Run as root, the reads run as the user nobody (setpriv), as root ignores permissions; the
# script exits 77 (skipped) when it can do neither.
# Usage: bash label_store_readonly.sh <sift-binary> <source-dir>
set -euo pipefail
SIFT=$(readlink -f "$1")
SRC=$2
WORK=$(mktemp -d)
trap 'chmod -R u+w "$WORK"; rm -rf "$WORK"' EXIT
if [ "$(id -u)" = 0 ]; then
  if ! setpriv --reuid=nobody --regid=nogroup --clear-groups true 2>/dev/null; then
    echo "label_store_readonly: root without setpriv: cannot read as another user (skipped)" >&2
    exit 77
  fi
  AS_READER=(setpriv --reuid=nobody --regid=nogroup --clear-groups)
  # nobody must reach the binary and the work folder
  chmod o+rx "$WORK"
  if ! "${AS_READER[@]}" test -x "$SIFT"; then
    echo "label_store_readonly: $SIFT is not executable by nobody (skipped)" >&2
    exit 77
  fi
else
  AS_READER=()
fi

MODEL=$WORK/labeler
source "$SRC/tests/e2e/lib/tiny_labeler.sh"
make_tiny_labeler "$SIFT" "$SRC" "$MODEL" 5
"$SIFT" synth --out "$WORK/world" --members 20 --candidates 10 --seed 3 2>/dev/null

PYTHONPATH="$SRC/tests/e2e/lib" python3 - "$SIFT" "$MODEL" "$WORK" "${AS_READER[@]}" <<'PY'
import json, os, shutil, sqlite3, subprocess, sys
from label_checks import Sift, check
sift_bin, model, work = sys.argv[1:4]
as_reader = sys.argv[4:]
world = f"{work}/world"
sift = Sift(sift_bin, model, f"{world}/catalog.jsonl")
profiles = f"{work}/profiles.jsonl"
with open(profiles, "w") as f:
    for line in open(f"{world}/train.jsonl"):
        r = json.loads(line)
        f.write(json.dumps({"id": r["id"], "text": r["query"]}) + "\n")
first = json.loads(open(profiles).readline())["id"]

# The store, written and closed as a user would leave it (its log folded into the file).
made = f"{work}/made.db"
sift.label(profiles, made, "--k", "4", "--max-rounds", "2")
check(not os.path.exists(made + "-wal"), "a closed store keeps no -wal")
want_export = sift.run("labels", "export", "--store", made).stdout
want_get = sift.run("labels", "get", "--store", made, "--member", first).stdout
check(want_export.count("\n") > 20 and json.loads(want_get)["labeled"], "the store holds labels")


def read_as_reader(store):
    """labels export and get as the reading user; both must match what the writer sees."""
    for args, want in ((["labels", "export", "--store", store], want_export),
                       (["labels", "get", "--store", store, "--member", first], want_get)):
        out = subprocess.run([*as_reader, sift_bin, *args], capture_output=True, text=True)
        check(out.returncode == 0, f"{' '.join(args)} as a reader: {out.stderr}")
        check(out.stdout == want, f"{' '.join(args)}: other rows than the writer's")


def listing(folder):
    return {name: open(os.path.join(folder, name), "rb").read() for name in sorted(os.listdir(folder))}


# 1. A read-only file in a folder the reader may write.
open_folder = f"{work}/open"
os.mkdir(open_folder)
os.chmod(open_folder, 0o777)
store = f"{open_folder}/labels.db"
shutil.copy(made, store)
os.chmod(store, 0o444)
read_as_reader(store)
check(open(store, "rb").read() == open(made, "rb").read(), "reading changed the store file")

# 2. A folder the reader may not write, no -wal in it: nothing is created there.
closed = f"{work}/closed"
os.mkdir(closed)
store = f"{closed}/labels.db"
shutil.copy(made, store)
os.chmod(store, 0o444)
os.chmod(closed, 0o555)
before = listing(closed)
read_as_reader(store)
check(listing(closed) == before, f"reading wrote into a read-only folder: {sorted(os.listdir(closed))}")

# 3. The same folder while a writer holds the store open: its last commit is in the -wal only.
os.chmod(closed, 0o755)
os.chmod(store, 0o644)
writer = sqlite3.connect(store)
writer.execute("PRAGMA wal_autocheckpoint=0")  # keep the commit in the -wal
writer.execute("UPDATE labels SET score = 0.125 WHERE member = ?", (first,))
writer.commit()
check(os.path.exists(store + "-wal") and os.path.getsize(store + "-wal") > 0, "the commit is in the -wal")
if os.getuid() != 0:
    os.chmod(closed, 0o555)  # as root the reader is another user: the folder's owner may write
got = subprocess.run([*as_reader, sift_bin, "labels", "get", "--store", store, "--member", first],
                     capture_output=True, text=True)
check(got.returncode == 0, f"labels get beside a writer: {got.stderr}")
scores = {j["score"] for j in json.loads(got.stdout)["judgments"]}
check(scores == {0.125}, f"the reader missed the writer's committed rows: {scores}")
writer.close()
os.chmod(closed, 0o755)
print("label_store_readonly: all checks passed", file=sys.stderr)
PY
