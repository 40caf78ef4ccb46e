#!/usr/bin/env bash
# End to end: --model ORG/NAME[@REVISION], a Hugging Face Hub model, against a local fake Hub
# (tests/e2e/lib/fake_hub.py: the Hub's resolve paths, headers and LFS redirects over plain
# HTTP) and hand-made caches; nothing leaves the machine.
#  - a Hub id loads into an empty cache (HF_HUB_CACHE) and scores as the same labeler's
#    directory does; the cache is laid out as huggingface_hub lays it (refs/main holds the
#    commit, snapshots/<commit>/<file> -> ../../blobs/<etag>, the etag an LFS file's SHA-256
#    or another file's git blob hash, .no_exist/ for a file the repository lacks);
#  - the same load with the fake Hub stopped, with and without HF_HUB_OFFLINE=1: the cache
#    alone; HF_HUB_OFFLINE=1 with nothing cached names the cache folder and what it lacks;
#  - a cache written by hand exactly as huggingface_hub writes it loads, by branch, tag and
#    commit (the other direction of two tools sharing one cache);
#  - a transfer the Hub cuts is resumed with a Range request, in the same run and from a
#    .incomplete blob a run left; a file whose SHA-256 is not its etag is refused and deleted;
#  - a gated repository: 401 without HF_TOKEN (the error names gating and HF_TOKEN), 403 with
#    a token lacking access, loaded with the right token (HF_TOKEN or the token file under
#    HF_HOME), which never goes to the LFS host;
#  - a revision pinned by commit, and a tag (refs/<tag> written);
#  - `sift init --model ORG/NAME --out DIR` makes DIR a labeler (sift.json and links into the
#    cache's snapshot) that scores; without --out it is a usage error; a Hub model without
#    sift.json names `sift init`;
#  - a directory that exists wins over a Hub id of the same spelling; a mistyped path under an
#    existing folder is a missing directory, not a Hub id; an unknown repository is named.
# Usage: bash hub_models.sh <sift-binary> <source-dir>
set -euo pipefail
exec python3 - "$1" "$2" <<'PY'
import atexit, hashlib, json, os, shutil, signal, subprocess, sys, tempfile, time
sift, src = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
work = tempfile.mkdtemp()
hubs = []

def cleanup():
    for hub in hubs:
        hub.kill()
    shutil.rmtree(work, True)
atexit.register(cleanup)
fake_hub = os.path.join(src, "tests", "e2e", "lib", "fake_hub.py")

def check(cond, what):
    if not cond:
        print("FAIL:", what, file=sys.stderr)
        sys.exit(1)

def base_env(**extra):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("HF_", "HUGGINGFACE_", "XDG_"))}
    env["HOME"] = os.path.join(work, "home")  # no token file of the machine's
    env.update(extra)
    return env

def run(*args, env, code=0, cwd=None):
    out = subprocess.run([sift, *args], capture_output=True, text=True, env=env, cwd=cwd, timeout=240)
    check(out.returncode == code, f"sift {' '.join(args)}: exit {out.returncode}, expected {code}:\n{out.stderr}")
    return out

def shell(*args):
    subprocess.run(args, check=True, stdout=subprocess.DEVNULL)

def make_labeler(directory, seed, sift_json=True):
    shell(sift, "make-checkpoint", "--out", directory, "--arch", "qwen3", "--preset", "tiny", "--vocab", "512",
          "--seed", str(seed))
    shutil.copy(os.path.join(src, "tests", "scoring", "data", "byte_bpe_tokenizer.json"),
                os.path.join(directory, "tokenizer.json"))
    if sift_json:
        json.dump({"format": "sift.scoring/2", "version": f"hub-{seed}",
                   "query_template": "<|im_start|>user\nDoes the profile support the qualification?\nProfile: {query}\n",
                   "item_template": "Qualification: {item}<|im_end|>\n<|im_start|>assistant\n",
                   "yes": "YES", "no": "NO", "threshold": 0.5}, open(os.path.join(directory, "sift.json"), "w"))

labeler_a, labeler_b, bare = (os.path.join(work, d) for d in ("labeler-a", "labeler-b", "bare"))
make_labeler(labeler_a, 1)
make_labeler(labeler_b, 2)
make_labeler(bare, 3, sift_json=False)
hub_root = os.path.join(work, "hub")

def add(repo, directory, *refs):
    return subprocess.run(["python3", fake_hub, "add", hub_root, repo, directory, *refs], check=True,
                          capture_output=True, text=True).stdout.strip()
A = add("sift-test/tiny", labeler_a, "main")
B = add("sift-test/tiny", labeler_b, "v2")
BARE = add("sift-test/bare", bare, "main")
add("sift-test/gated", labeler_a, "main")
open(os.path.join(hub_root, "sift-test", "gated", "gated"), "w").write("hf_right_token\n")

def start_hub(*flags):
    log = os.path.join(work, f"hub-{len(hubs)}.log")
    port_file = log + ".port"
    hub = subprocess.Popen(["python3", fake_hub, "serve", hub_root, port_file, log, *flags])
    hubs.append(hub)
    for _ in range(300):
        if os.path.exists(port_file):
            return f"http://127.0.0.1:{open(port_file).read()}", log
        time.sleep(0.05)
    check(False, "the fake hub did not start")

def requests(log):
    return [json.loads(line) for line in open(log)] if os.path.exists(log) else []

rows = os.path.join(work, "rows.jsonl")
with open(rows, "w") as f:
    f.write(json.dumps({"id": "r1", "query": "Ten years of Python and Go", "items": ["Python", "Welding", "Go"]}) + "\n")
    f.write(json.dumps({"id": "r2", "query": "Welder, certified", "items": ["Welding"]}) + "\n")

def scores(model, env, cwd=None):
    out = run("score", "--model", model, "--input", rows, env=env, cwd=cwd)
    return [json.loads(line)["scores"] for line in out.stdout.splitlines()]

scores_a = scores(labeler_a, base_env())
scores_b = scores(labeler_b, base_env())
check(scores_a != scores_b, "two seeds, two labelers")

def cache_env(cache, endpoint, **extra):
    return base_env(HF_HUB_CACHE=cache, HF_ENDPOINT=endpoint, **extra)

def git_blob_sha1(data):
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()

def etag_of(path):
    data = open(path, "rb").read()
    return hashlib.sha256(data).hexdigest() if path.endswith(".safetensors") else git_blob_sha1(data)

FILES = ("config.json", "tokenizer.json", "sift.json", "model.safetensors")

# 1. A Hub id into an empty cache: the same scores as the directory, huggingface_hub's layout.
endpoint, log = start_hub()
cache = os.path.join(work, "cache")
check(scores("sift-test/tiny", cache_env(cache, endpoint)) == scores_a, "the Hub id scores as its directory")
repo = os.path.join(cache, "models--sift-test--tiny")
check(open(os.path.join(repo, "refs", "main")).read() == A, "refs/main holds the commit alone")
for name in FILES:
    link = os.path.join(repo, "snapshots", A, name)
    etag = etag_of(os.path.join(labeler_a, name))
    check(os.path.islink(link) and os.readlink(link) == f"../../blobs/{etag}", f"{link} -> ../../blobs/{etag}")
    check(open(link, "rb").read() == open(os.path.join(labeler_a, name), "rb").read(), f"{name}: its bytes")
check(os.path.exists(os.path.join(repo, ".no_exist", A, "model.safetensors.index.json")),
      ".no_exist records the index the repository lacks")
check(not [n for n in os.listdir(os.path.join(repo, "blobs")) if n.endswith(".incomplete")], "no .incomplete left")
check(all(r["authorization"] is None for r in requests(log)), "no token sent when none is set")
lfs = [r for r in requests(log) if r["path"].startswith("/lfs/")]
check(len(lfs) == 1 and lfs[0]["range"] is None, f"one GET of the weights from the LFS host: {lfs}")

# 2. The cache alone: the fake Hub stopped, with and without HF_HUB_OFFLINE.
hubs[-1].kill()
hubs[-1].wait()
check(scores("sift-test/tiny", cache_env(cache, endpoint, HF_HUB_OFFLINE="1")) == scores_a, "offline from the cache")
check(scores("sift-test/tiny", cache_env(cache, endpoint)) == scores_a, "a complete snapshot needs no network")
check(scores(f"sift-test/tiny@{A}", cache_env(cache, endpoint, HF_HUB_OFFLINE="1")) == scores_a, "@commit, offline")
#    A calibrated copy of a Hub model is a labeler of its own files (the snapshot's links are
#    relative, so the copy holds the files); --in-place would rewrite the cache: refused.
labeled = os.path.join(work, "labeled.jsonl")
with open(labeled, "w") as f:
    for i in range(6):
        f.write(json.dumps({"id": f"l{i}", "query": f"profile {i}", "items": ["Python", "Welding"],
                            "labels": [i % 2, (i + 1) % 2]}) + "\n")
offline = cache_env(cache, endpoint, HF_HUB_OFFLINE="1")
out = run("calibrate", "--model", "sift-test/tiny", "--input", labeled, "--in-place", env=offline, code=2)
check("--out" in out.stderr, f"--in-place on a Hub model: {out.stderr}")
calibrated = os.path.join(work, "calibrated")
run("calibrate", "--model", "sift-test/tiny", "--input", labeled, "--out", calibrated, "--force", env=offline)
check(not any(os.path.islink(os.path.join(calibrated, n)) for n in FILES), "the copy holds files, not links")
check(scores(calibrated, base_env()) == scores_a, "the calibrated copy scores as the Hub model")
empty = os.path.join(work, "empty-cache")
out = run("score", "--model", "sift-test/tiny", "--input", rows, env=cache_env(empty, endpoint, HF_HUB_OFFLINE="1"),
          code=1)
check("HF_HUB_OFFLINE" in out.stderr and os.path.join(empty, "models--sift-test--tiny") in out.stderr
      and "refs/main" in out.stderr, f"offline with nothing cached names the cache: {out.stderr}")
partial = os.path.join(work, "partial-cache")
shutil.copytree(cache, partial, symlinks=True)
os.unlink(os.path.join(partial, "models--sift-test--tiny", "snapshots", A, "model.safetensors"))
out = run("score", "--model", "sift-test/tiny", "--input", rows, env=cache_env(partial, endpoint, HF_HUB_OFFLINE="1"),
          code=1)
check("lacks model.safetensors" in out.stderr and os.path.join("snapshots", A) in out.stderr,
      f"offline with a file missing names it and the snapshot: {out.stderr}")
out = run("score", "--model", "sift-test/tiny", "--input", rows, env=cache_env(partial, endpoint), code=1)
check("cannot reach" in out.stderr and "HF_HUB_OFFLINE" in out.stderr, f"a Hub out of reach: {out.stderr}")

# 3. A cache written by hand as huggingface_hub writes it: blobs by etag, relative links, refs
#    without a newline; loaded by branch, tag and commit, offline.
hand = os.path.join(work, "hand-cache")
hand_repo = os.path.join(hand, "models--sift-test--handmade")
os.makedirs(os.path.join(hand_repo, "blobs"))
os.makedirs(os.path.join(hand_repo, "snapshots", B))
os.makedirs(os.path.join(hand_repo, "refs"))
for name in FILES:
    etag = etag_of(os.path.join(labeler_b, name))
    shutil.copy(os.path.join(labeler_b, name), os.path.join(hand_repo, "blobs", etag))
    os.symlink(f"../../blobs/{etag}", os.path.join(hand_repo, "snapshots", B, name))
for ref in ("main", "v2"):
    open(os.path.join(hand_repo, "refs", ref), "w").write(B)
for model in ("sift-test/handmade", "sift-test/handmade@v2", f"sift-test/handmade@{B}"):
    check(scores(model, cache_env(hand, endpoint, HF_HUB_OFFLINE="1")) == scores_b, f"{model} from a hand-made cache")
check(scores("sift-test/handmade", base_env(HF_HOME=os.path.join(work, "hf-home"), HF_HUB_OFFLINE="1",
                                           HF_HUB_CACHE=hand)) == scores_b, "HF_HUB_CACHE before HF_HOME")
os.makedirs(os.path.join(work, "hf-home"))
os.symlink(hand, os.path.join(work, "hf-home", "hub"))
check(scores("sift-test/handmade", base_env(HF_HOME=os.path.join(work, "hf-home"), HF_HUB_OFFLINE="1")) == scores_b,
      "$HF_HOME/hub")

# 4. A transfer cut short: resumed with a Range request in the same run.
endpoint, log = start_hub("--cut-first")
cut_cache = os.path.join(work, "cut-cache")
check(scores("sift-test/tiny", cache_env(cut_cache, endpoint)) == scores_a, "scores after a resumed transfer")
size = os.path.getsize(os.path.join(labeler_a, "model.safetensors"))
lfs = [r for r in requests(log) if r["path"].startswith("/lfs/")]
check(len(lfs) == 2 and lfs[0]["range"] is None and lfs[1]["range"] == f"bytes={size // 2}-",
      f"the second GET resumes at the half the first sent: {lfs}")
hubs[-1].kill()

#    ... and from the .incomplete blob a run left (the first 1000 bytes).
endpoint, log = start_hub()
left_cache = os.path.join(work, "left-cache")
sha = etag_of(os.path.join(labeler_a, "model.safetensors"))
blobs = os.path.join(left_cache, "models--sift-test--tiny", "blobs")
os.makedirs(blobs)
open(os.path.join(blobs, sha + ".incomplete"), "wb").write(open(os.path.join(labeler_a, "model.safetensors"), "rb").read(1000))
check(scores("sift-test/tiny", cache_env(left_cache, endpoint)) == scores_a, "scores after resuming a left part")
lfs = [r for r in requests(log) if r["path"].startswith("/lfs/")]
check([r["range"] for r in lfs] == ["bytes=1000-"], f"one GET from byte 1000: {lfs}")
check(hashlib.sha256(open(os.path.join(blobs, sha), "rb").read()).hexdigest() == sha and not os.path.exists(os.path.join(blobs, sha + ".incomplete")),
      "the resumed blob is whole")

#    A left part that is not the file's start fails its checksum: refused and deleted.
bad_cache = os.path.join(work, "bad-part-cache")
bad_blobs = os.path.join(bad_cache, "models--sift-test--tiny", "blobs")
os.makedirs(bad_blobs)
open(os.path.join(bad_blobs, sha + ".incomplete"), "wb").write(b"\0" * 1000)
out = run("score", "--model", "sift-test/tiny", "--input", rows, env=cache_env(bad_cache, endpoint), code=1)
check("SHA-256" in out.stderr and "model.safetensors" in out.stderr, f"a bad part is refused: {out.stderr}")
check(os.listdir(bad_blobs) and not [n for n in os.listdir(bad_blobs) if n.startswith(sha)], "and deleted")
check(scores("sift-test/tiny", cache_env(bad_cache, endpoint)) == scores_a, "the next run downloads it anew")
hubs[-1].kill()

# 5. A corrupted file: refused by its checksum, nothing of it kept or linked.
endpoint, log = start_hub("--corrupt")
corrupt_cache = os.path.join(work, "corrupt-cache")
out = run("score", "--model", "sift-test/tiny", "--input", rows, env=cache_env(corrupt_cache, endpoint), code=1)
check(f"the Hub's is {sha}" in out.stderr and "refused and deleted" in out.stderr, f"corruption refused: {out.stderr}")
corrupt_repo = os.path.join(corrupt_cache, "models--sift-test--tiny")
check(not [n for n in os.listdir(os.path.join(corrupt_repo, "blobs")) if n.startswith(sha)], "no blob kept")
check(not os.path.lexists(os.path.join(corrupt_repo, "snapshots", A, "model.safetensors")), "no link made")
hubs[-1].kill()

# 6. A gated repository: without a token, with one lacking access, with the right one.
endpoint, log = start_hub()
gated_cache = os.path.join(work, "gated-cache")
out = run("score", "--model", "sift-test/gated", "--input", rows, env=cache_env(gated_cache, endpoint), code=1)
check("gated" in out.stderr and "HF_TOKEN" in out.stderr and "401" in out.stderr, f"401 names gating: {out.stderr}")
out = run("score", "--model", "sift-test/gated", "--input", rows,
          env=cache_env(gated_cache, endpoint, HF_TOKEN="hf_wrong"), code=1)
check("refused the token of HF_TOKEN" in out.stderr and "403" in out.stderr, f"403 names the token: {out.stderr}")
check(scores("sift-test/gated", cache_env(gated_cache, endpoint, HF_TOKEN="hf_right_token")) == scores_a,
      "the right token loads it")
sent = [r for r in requests(log) if r["authorization"] == "Bearer hf_right_token"]
check(sent and all(not r["path"].startswith("/lfs/") for r in sent), "the token goes to the Hub, not the LFS host")
token_home = os.path.join(work, "token-home")
os.makedirs(token_home)
open(os.path.join(token_home, "token"), "w").write("hf_right_token\n")
check(scores("sift-test/gated", base_env(HF_HOME=token_home, HF_ENDPOINT=endpoint)) == scores_a,
      "the token file under HF_HOME (huggingface-cli login's)")

# 7. Revisions: pinned by commit (no ref written), and a tag (refs/v2).
rev_cache = os.path.join(work, "rev-cache")
check(scores(f"sift-test/tiny@{B}", cache_env(rev_cache, endpoint)) == scores_b, "@commit loads that commit")
rev_repo = os.path.join(rev_cache, "models--sift-test--tiny")
check(os.listdir(os.path.join(rev_repo, "snapshots")) == [B] and not os.path.exists(os.path.join(rev_repo, "refs")),
      "a commit needs no ref")
check(scores("sift-test/tiny@v2", cache_env(rev_cache, endpoint)) == scores_b, "@tag")
check(open(os.path.join(rev_repo, "refs", "v2")).read() == B, "refs/v2 holds the tag's commit")
out = run("score", "--model", "sift-test/tiny@nope", "--input", rows, env=cache_env(rev_cache, endpoint), code=1)
check('no revision "nope"' in out.stderr, f"an unknown revision is named: {out.stderr}")
out = run("score", "--model", "sift-test/nothing", "--input", rows, env=cache_env(rev_cache, endpoint), code=1)
check("sift-test/nothing" in out.stderr and "401" in out.stderr, f"an unknown repository is named: {out.stderr}")

# 8. sift init over a Hub id: a labeler directory of links and its own sift.json.
init_cache = os.path.join(work, "init-cache")
env = cache_env(init_cache, endpoint)
out = run("score", "--model", "sift-test/bare", "--input", rows, env=env, code=1)
check("no sift.json" in out.stderr and "sift init" in out.stderr, f"a bare Hub model names sift init: {out.stderr}")
check(os.path.exists(os.path.join(init_cache, "models--sift-test--bare", ".no_exist", BARE, "sift.json")),
      ".no_exist records the sift.json the repository lacks")
out = run("init", "--model", "sift-test/bare", "--preset", "compact", env=env, code=2)
check("--out" in out.stderr, f"init over a Hub id without --out: {out.stderr}")
mine = os.path.join(work, "my-labeler")
report = json.loads(run("init", "--model", "sift-test/bare", "--preset", "compact", "--out", mine, env=env).stdout)
check(report["model"] == "sift-test/bare" and report["sift_json"] == os.path.join(mine, "sift.json"), f"{report}")
snapshot = os.path.join(init_cache, "models--sift-test--bare", "snapshots", BARE)
for name in ("config.json", "tokenizer.json", "model.safetensors"):
    link = os.path.join(mine, name)
    check(os.path.islink(link) and os.readlink(link) == os.path.join(snapshot, name), f"{link} -> the snapshot")
check(not os.path.islink(os.path.join(mine, "sift.json")), "sift.json is the labeler's own")
mine_scores = scores(mine, base_env())
check(len(mine_scores) == 2 and all(0 <= s <= 1 for row in mine_scores for s in row), "the new labeler scores")
out = run("init", "--model", "sift-test/bare", "--preset", "compact", "--out", mine, env=env, code=1)
check("--force" in out.stderr, f"an existing --out needs --force: {out.stderr}")
run("init", "--model", "sift-test/bare", "--preset", "compact", "--out", mine, "--force", env=env)
hubs[-1].kill()

# 9. A directory that exists wins; a mistyped path under an existing folder is not a Hub id.
cwd = os.path.join(work, "cwd")
os.makedirs(os.path.join(cwd, "sift-test"))
shutil.copytree(labeler_b, os.path.join(cwd, "sift-test", "tiny"))
dead = cache_env(os.path.join(work, "unused-cache"), "http://127.0.0.1:9")
check(scores("sift-test/tiny", dead, cwd=cwd) == scores_b, "the directory, not the Hub model")
out = run("score", "--model", "sift-test/tyni", "--input", rows, env=dead, cwd=cwd, code=1)
check("does not exist" in out.stderr, f"a mistyped path: {out.stderr}")
check(not os.path.exists(os.path.join(work, "unused-cache")), "nothing cached for a directory")
print("hub_models: ok")
PY
