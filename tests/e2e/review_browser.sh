#!/usr/bin/env bash
# End to end in a browser: Debian's chromium, headless, driven over the DevTools protocol
# (tests/e2e/lib/cdp.py) through `sift review` on a store made by `sift label` with the
# bundled labeler: log in with the key; the members page, a search, one member; the slider
# moved, its flip counts (this member's and the store's) changing to what `sift labels
# export` says; two pairs reviewed with the keyboard (j, n, y), found in the store and in
# `sift labels export --reviewed`; `sift label` run again with another threshold while the
# page is open: the next verdict is not recorded, the page says the judgment changed and shows
# the new one, and the verdict given again lands on it; the calibration page draws its curve; a profile holding
# <script> and an onerror handler shows as text and runs nothing; with the cookie gone every
# route is refused again. With SIFT_REVIEW_SCREENSHOTS=DIR the three pages are saved there
# (docs/review.md shows them). Skipped (77) without chromium or python3-websocket.
# Usage: bash review_browser.sh <sift-binary> <source-dir>
set -euo pipefail
SIFT=$1
SRC=$2
if [ ! -x /usr/bin/chromium ] || ! /usr/bin/python3 -c "import websocket" 2>/dev/null; then
  echo "skipped: needs Debian's chromium and python3-websocket (make setup installs them)"
  exit 77
fi
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

PYTHONPATH="$SRC/tests/e2e/lib" /usr/bin/python3 - "$SIFT" "$SRC" "$WORK" "${SIFT_REVIEW_SCREENSHOTS:-}" <<'PY'
import json, os, shutil, sqlite3, sys
from cdp import Browser
from review_client import HOSTILE, Review, check, export, flipping_threshold, make_store, relabel
sift, src, work, shots = sys.argv[1:5]
# The bundled labeler with a calibration map (a copy: the bundled one is never written), so
# the calibration page draws the reliability of its probabilities beside the scores'.
labeler = f"{work}/labeler"
shutil.copytree(f"{src}/models/default-labeler", labeler)
artifact = json.load(open(f"{labeler}/sift.json"))
artifact["calibration_map"] = {"format": "sift.calibration_map/1", "method": "temperature", "parameters": {"temperature": 2.0}}
json.dump(artifact, open(f"{labeler}/sift.json", "w"))
store, profiles, reference = make_store(sift, src, work)
judged = export(sift, store)
with open(f"{work}/key", "w") as f:
    f.write("browser-key\n")
hostile_member = list(profiles)[2]

def shot(browser, name):
    path = os.path.join(shots or work, f"review-{name}.png")
    browser.screenshot(path)
    check(os.path.getsize(path) > 10_000, f"{name}: a screenshot of a drawn page")

with Review(sift, store, work, "--reviewer", "ann", "--api-key-file", f"{work}/key", "--reference", reference,
            "--model", labeler) as server, Browser() as browser:
    # 1. Not logged in: the login form. Log in with the key: the members page.
    browser.navigate(server.url + "/")
    browser.wait_for("document.querySelector('input[name=key]') !== null", "the login form")
    browser.evaluate("document.querySelector('input[name=key]').focus()")
    browser.type_text("browser-key")
    browser.evaluate("document.querySelector('form').submit()")
    rows = browser.wait_for("document.querySelectorAll('#members tbody tr').length", "the members list")
    check(rows == len(profiles), f"{rows} members listed")
    browser.evaluate("document.getElementById('order').value = 'uncertainty';"
                     "document.getElementById('order').dispatchEvent(new Event('change'))")
    browser.wait_for("location.search.includes('uncertainty')", "sorted by uncertainty")
    shot(browser, "members")

    # 2. Search the hostile profile's words: one member; open it.
    browser.evaluate("document.getElementById('field').value = 'text';"
                     "document.getElementById('field').dispatchEvent(new Event('change'));"
                     "document.getElementById('search').focus()")
    browser.type_text("window.__pwned")
    browser.wait_for("document.querySelectorAll('#members tbody tr').length === 1", "one member found")
    found = browser.evaluate("document.querySelector('#members tbody a').textContent")
    check(found == hostile_member, f"search found {found}")
    browser.evaluate("document.querySelector('#members tbody a').click()")
    n = len([r for r in judged if r["member"] == hostile_member])
    browser.wait_for(f"document.querySelectorAll('#candidates tbody tr').length === {n}", "the member's candidates")
    profile = browser.evaluate("document.getElementById('profile').textContent")
    check(profile == profiles[hostile_member] and profile.startswith(HOSTILE), "the profile shows as text")
    check(browser.evaluate("document.querySelectorAll('#profile *').length") == 0, "no element made from the text")
    check(browser.evaluate("typeof window.__pwned") == "undefined", "the profile's script did not run")

    # 3. The slider: this member's flips and the store's, as the export says.
    mine = [r for r in judged if r["member"] == hostile_member]
    t = sorted(r["score"] for r in mine)[len(mine) // 2] + 1e-4  # a cut through this member's scores
    t = round(t, 3)
    flips_here = sum(1 for r in mine if (r["score"] >= t) != r["label"])
    flips_store = sum(1 for r in judged if (r["score"] >= t) != r["label"])
    check(flips_here > 0, "the chosen threshold flips some of this member's labels")
    before = browser.wait_for("document.getElementById('store-flips').textContent", "the store's flip count")
    browser.evaluate(f"const s = document.getElementById('threshold'); s.value = '{t}';"
                     "s.dispatchEvent(new Event('input', {bubbles: true}))")
    here = browser.wait_for(f"document.getElementById('member-flips').textContent.includes(': {flips_here} of')",
                            "this member's flip count")
    text = browser.wait_for(f"(t => t.includes('Store: {flips_store} of') && t)(document.getElementById('store-flips').textContent)",
                            "the store's flip count at the new threshold")
    check(text != before, f"the store's count changed: {before} -> {text}")
    marked = browser.evaluate("document.querySelectorAll('#candidates tbody tr.flipped').length")
    check(marked == flips_here, f"{marked} rows marked as flipping, not {flips_here}")
    shot(browser, "member")

    # 4. Review two pairs with the keyboard: j (second row), n (wrong), then y on the next (right).
    browser.evaluate("document.activeElement && document.activeElement.blur()")
    browser.key("j")
    browser.wait_for("document.querySelectorAll('#candidates tbody tr')[1].classList.contains('selected')", "j")
    browser.key("n")
    browser.wait_for("document.getElementById('status').textContent.includes('is wrong')", "the first verdict")
    browser.wait_for("document.querySelectorAll('#candidates tbody tr')[2].classList.contains('selected')", "next row")
    browser.key("y")
    browser.wait_for("document.getElementById('status').textContent.includes('is right')", "the second verdict")
    second, third = mine[1], mine[2]
    db = sqlite3.connect(f"file:{store}?mode=ro", uri=True)
    verdicts = db.execute("SELECT member, qualification, reviewer, verdict FROM reviews ORDER BY reviewed_at").fetchall()
    db.close()
    check(verdicts == [(hostile_member, second["qualification"], "ann", "wrong"),
                       (hostile_member, third["qualification"], "ann", "right")], f"the store's verdicts: {verdicts}")
    rows = export(sift, store, "--reviewed")
    check(len(rows) == 1 and rows[0]["id"] == hostile_member and rows[0]["query"] == profiles[hostile_member], f"{rows}")
    got = {item["id"]: label for item, label in zip(rows[0]["items"], rows[0]["labels"])}
    check(got == {second["qualification"]: int(not second["label"]), third["qualification"]: int(third["label"])},
          f"exported true labels: {got}")
    check(export(sift, store) == judged, "the judgments are unchanged")

    # 4b. sift label runs again with a threshold that turns the selected pair's label, while
    # the page still shows the old judgment. y: not recorded; the page says the judgment changed
    # and shows the new one, still selected. y again: recorded against the new judgment.
    fourth = mine[3]
    check(fourth["round"] == 1 and browser.evaluate(
        "document.querySelector('#candidates tbody tr.selected').dataset.qualification") == fourth["qualification"],
        "the fourth pair, of round 1 (judged again whatever the threshold), is selected")
    relabel(sift, src, work, store, hostile_member, profiles, flipping_threshold(fourth["score"], fourth["label"]))
    new_label = "NO" if fourth["label"] else "YES"
    browser.key("y")
    error = browser.wait_for("document.getElementById('error').textContent", "the page saying the judgment changed")
    check("changed since the page showed it" in error and f"is now {new_label}" in error, f"the page says: {error}")
    selected = "document.querySelector('#candidates tbody tr.selected')"
    check(browser.evaluate(f"{selected}.dataset.qualification") == fourth["qualification"], "the same pair selected")
    check(browser.evaluate(f"{selected}.querySelector('.label').textContent") == new_label, "the new label shown")
    db = sqlite3.connect(f"file:{store}?mode=ro", uri=True)
    n = db.execute("SELECT COUNT(*) FROM reviews WHERE qualification = ?", (fourth["qualification"],)).fetchone()[0]
    db.close()
    check(n == 0, "no verdict recorded on the old judgment")
    browser.key("y")
    browser.wait_for(f"document.getElementById('status').textContent.includes('{fourth['qualification']}')",
                     "the verdict on the new judgment")
    got = {item["id"]: label for r in export(sift, store, "--reviewed") for item, label in zip(r["items"], r["labels"])}
    check(got[fourth["qualification"]] == int(not fourth["label"]), f"exported: right about {new_label}: {got}")

    # 5. The calibration page draws the PR curve, the histogram and the reliability diagram
    # (the scores' and the calibrated probabilities') from the reference rows.
    browser.navigate(server.url + "/calibration")
    browser.wait_for("document.querySelector('#pr path.curve') !== null", "the PR curve")
    browser.wait_for("document.querySelector('#reliability path.curve') !== null", "the scores' reliability curve")
    check(browser.evaluate("document.querySelector('#reliability path.calibrated') !== null"),
          "the calibrated probabilities' reliability curve")
    summary = browser.evaluate("document.getElementById('reliability-summary').textContent")
    check("Score: ECE" in summary and "Calibrated probability: ECE" in summary, f"ECE and Brier shown: {summary}")
    check(browser.evaluate("document.querySelectorAll('#histogram rect').length") > 2, "the histogram")
    check(browser.evaluate("document.querySelectorAll('#history tbody tr').length") >= 1, "sift.json's history")
    shot(browser, "calibration")
    check(browser.evaluate("typeof window.__pwned") == "undefined", "nothing hostile ran anywhere")

    # 6. Without the cookie every route is refused again.
    browser.clear_cookies()
    for path in ("/api/members", "/api/session", "/assets/common.js", "/calibration"):
        browser.navigate(server.url + path)
        body = browser.evaluate("document.body ? document.body.innerText : ''")
        check("log in" in body.lower() or "key" in body.lower(), f"{path} without the cookie: {body[:200]}")
    status = browser.evaluate("fetch('/api/members').then(r => r.status)")
    check(status == 401, f"fetch without the cookie: {status}")
print("review_browser: ok")
PY
