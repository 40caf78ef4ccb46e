#!/usr/bin/env bash
# End to end: the real `sift serve` (a tiny random labeler) charges each request what its plan
# runs in its mode, and builds nothing large before it knows what that is:
#   usage: mode independent's prompt_tokens is the sum over its items of (query + item), prefix's
#   the query once and every item (its cached part the query's K/V it reused), each what
#   /metrics counts as prefilled; mode generate is queued as its prompts and its answer budget;
#   --max-queue-tokens: a mode independent request whose plan passes it gets 413 naming both
#   numbers, while the same request in mis is admitted;
#   /v1/score item_first: a query copied into every item is sized from the lengths first (400 for
#   a prompt longer than a request, 413 for more than the queue holds), with small peak RSS;
#   tokenizing runs off the HTTP threads: with one HTTP thread and the preparation held (its test
#   gate, docs/testing.md), /health and /metrics are answered while a request waits to be
#   tokenized.
# Usage: bash serve_plans.sh <sift-binary> <source-dir>
set -euo pipefail
SIFT=$1
SRC=$2
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

source "$SRC/tests/e2e/lib/tiny_labeler.sh"
make_tiny_labeler "$SIFT" "$SRC" "$WORK/labeler" 5

PYTHONPATH="$SRC/tests/e2e/lib" OMP_NUM_THREADS=1 python3 - "$SIFT" "$WORK" <<'PY'
import resource, sys, threading
from serve_client import Server, check, wait_until
from sift_build import sanitized
sift, work = sys.argv[1:3]
model = f"{work}/labeler"

QUERY = "a long profile of many years " * 10
ITEMS = [f"qualification number {i} of many" for i in range(40)]

def in_background(fn):
    out = {}
    t = threading.Thread(target=lambda: out.setdefault("r", fn()))
    t.start()
    return t, out

def label(server, items, mode):
    status, _, body = server.post("/v1/label", {"query": QUERY, "items": items, "mode": mode})
    check(status == 200, f"mode {mode}: {status} {body}")
    return body["usage"]

def prefilled(server, fn):
    """What `fn` (one request) ran through the model, by /metrics: (its result, tokens)."""
    before = server.metric("sift_prefill_tokens_total")
    result = fn()
    return result, server.metric("sift_prefill_tokens_total") - before

# 1. Usage is what the plan runs, as /metrics counts it.
with Server(sift, model, "--threads", "1") as server:
    # mis: the row's prompt, the query once, then every item (run whole the first time).
    row, run = prefilled(server, lambda: label(server, ITEMS, "mis"))
    check(row["prompt_tokens_details"]["cached_tokens"] == 0 and run == row["prompt_tokens"], f"mis: {row}, {run} run")
    # Each [query; item] alone: its prompt, in mis.
    alone = [label(server, [item], "mis")["prompt_tokens"] for item in ITEMS]
    query_len = (sum(alone) - row["prompt_tokens"]) // (len(ITEMS) - 1)
    check(query_len > 0 and all(p > query_len for p in alone), f"the query's tokens: {query_len} of {alone}")
    # independent: every [query; item] run whole, nothing cached.
    independent, run = prefilled(server, lambda: label(server, ITEMS, "independent"))
    check(independent["prompt_tokens"] == sum(alone) and independent["prompt_tokens_details"]["cached_tokens"] == 0
          and run == sum(alone), f"independent: {independent}, {run} run; want {sum(alone)}")
    # prefix: the query once and every item; the query's K/V is in the cache by now (the mis
    # requests left it there), so it is reused: cached, and not run.
    prefix, run = prefilled(server, lambda: label(server, ITEMS, "prefix"))
    check(prefix["prompt_tokens"] == row["prompt_tokens"] and prefix["prompt_tokens_details"]["cached_tokens"] == query_len
          and run == prefix["prompt_tokens"] - query_len, f"prefix: {prefix}, {run} run; want {row['prompt_tokens']} - {query_len}")
    PLAN = {"mis": row["prompt_tokens"], "independent": sum(alone)}

# 2. What a request is charged in the queue: its plan. The engine is held on a small request, so
# the one measured waits in the queue with its charge on sift_queue_tokens.
with Server(sift, model, "--threads", "1", gated=True) as server:
    def charged(mode):
        taken = server.metric("sift_queue_wait_seconds_count") or 0
        blocker, _ = in_background(lambda: server.post("/v1/label", {"query": "x", "items": ["y"]}))
        wait_until(lambda: server.metric("sift_queue_wait_seconds_count") == taken + 1, "the engine never took the blocker")
        t, out = in_background(lambda: server.post("/v1/label", {"query": QUERY, "items": ITEMS, "mode": mode}))
        wait_until(lambda: server.metric("sift_queue_requests") == 1, f"the {mode} request never reached the queue")
        charge = server.metric("sift_queue_tokens")
        server.release(2)  # the blocker's batch, then this one's
        blocker.join()
        t.join()
        check(out["r"][0] == 200, f"{mode}: {out['r']}")
        return charge, out["r"][2]["usage"]
    for mode in ("mis", "independent"):
        charge, usage = charged(mode)
        check(charge == PLAN[mode], f"{mode} is charged {charge}, its plan runs {PLAN[mode]}")
    charge, usage = charged("generate")
    ran = usage["prompt_tokens"] + usage["generated_tokens"]
    check(charge >= ran and charge > usage["prompt_tokens"] > 0,
          f"generate is charged {charge}: its prompts and answer budget, at least the {ran} it ran ({usage})")

# 3. --max-queue-tokens between the two plans: independent is refused, naming both, mis admitted.
between = (PLAN["mis"] + PLAN["independent"]) // 2
with Server(sift, model, "--threads", "1", "--max-queue-tokens", str(between)) as server:
    status, _, body = server.post("/v1/label", {"query": QUERY, "items": ITEMS, "mode": "independent"})
    check(status == 413 and f"runs {PLAN['independent']} tokens" in body["message"] and "mode independent" in body["message"]
          and f"more than --max-queue-tokens {between}" in body["message"], f"independent past the queue: {status} {body}")
    check(server.metric("sift_prefill_tokens_total") == 0, "the refused request ran nothing")
    label(server, ITEMS, "mis")

# 4. /v1/score item_first copies the query into every item: the sizes are checked from the
# lengths first. The server runs under an address-space limit (not under AddressSanitizer, whose
# shadow memory needs terabytes of it), so a regression fails instead of taking the machine.
limit = None if sanitized(sift) else (lambda: resource.setrlimit(resource.RLIMIT_AS, (4 << 30, 4 << 30)))
with Server(sift, model, "--threads", "1", preexec_fn=limit) as server:
    peak_before = server.rss_kib("VmHWM")
    # 10,000 prompts of 5,001 tokens each fit a request, but 50,010,000 tokens are more than the
    # queue holds: once 200 MB of copies before the 413.
    queued = {"query": [1] * 5000, "items": [[2]] * 10000, "label_token_ids": [1], "item_first": True}
    status, _, body = server.post("/v1/score", queued)
    check(status == 413 and "runs 50010000 tokens" in body["message"] and "--max-queue-tokens 262144" in body["message"],
          f"item_first past the queue: {status} {body}")
    # A query longer than a request: every prompt is too long (once 800 MB of copies, then 400).
    long_query = {"query": [1] * 20000, "items": [[2]] * 10000, "label_token_ids": [1], "item_first": True}
    status, _, body = server.post("/v1/score", long_query)
    check(status == 400 and body["param"] == "items[0]" and "20001 tokens" in body["message"]
          and "8192" in body["message"], f"item_first longer than a request: {status} {body}")
    server.check_rss_growth(peak_before, 64 * 1024, "at its peak on item_first bodies", field="VmHWM")
    check(server.metric("sift_prefill_tokens_total") == 0, "nothing was computed")
    status, _, body = server.post("/v1/score", {"query": [1, 3], "items": [[2], [4]], "label_token_ids": [1], "item_first": True})
    check(status == 200 and body["usage"]["prompt_tokens"] == 6, f"item_first within the limits: {status} {body}")

# 5. Tokenizing is off the HTTP threads: one HTTP thread, the preparation held on a request.
with Server(sift, model, "--threads", "1", "--http-threads", "1", prepare_gated=True) as server:
    t, out = in_background(lambda: server.post("/v1/label", {"query": QUERY, "items": ITEMS}))
    wait_until(lambda: server.metric("sift_preparing_requests") == 1, "the request never reached the preparation")
    check(server.request("GET", "/health")[0] == 200, "/health while a request waits to be tokenized")
    check(t.is_alive() and "r" not in out, "the held request is not answered before it is tokenized")
    server.release_prepare()
    t.join()
    check(out["r"][0] == 200 and len(out["r"][2]["scores"]) == len(ITEMS), f"then it is answered: {out['r'][0]}")
    check(server.metric("sift_preparing_requests") == 0, "nothing is left in preparation")
PY
echo "serve_plans: ok"
