// One member: its profile, each candidate's score as a bar with the threshold as a line, a
// threshold slider showing what would flip (here, and as counts for the whole store), and
// verdicts by keyboard: j/k move, y/n say the selected label is right/wrong. With ?queue=1
// it walks the review queue: the most uncertain unreviewed pair, then the next. A verdict on
// a judgment that changed since the page showed it (sift label ran again) is not recorded:
// the page says so and shows the member as the store now has it.
"use strict";

(function () {
  const params = sift.params();
  const inQueue = params.get("queue") === "1";
  const slider = document.getElementById("threshold");
  const state = { member: null, rows: [], selected: 0, threshold: 0.5 };

  function verdictText(reviews) {
    return reviews.map((r) => `${r.verdict} (${r.reviewer})${r.stale ? " stale" : ""}`).join(", ");
  }

  function bar(score) {
    const fill = sift.el("div", { className: "fill" });
    fill.style.width = `${(score * 100).toFixed(2)}%`;
    const cut = sift.el("div", { className: "cut" });
    return sift.el("div", { className: "bar" }, fill, cut, sift.el("span", { className: "value" }, sift.score(score)));
  }

  function row(j, index, withReference) {
    const right = sift.el("button", { type: "button", title: "the label is right (y)" }, "Right");
    const wrong = sift.el("button", { type: "button", title: "the label is wrong (n)" }, "Wrong");
    right.addEventListener("click", () => { select(index); judge("right"); });
    wrong.addEventListener("click", () => { select(index); judge("wrong"); });
    const reference = j.reference === null ? "" : j.reference ? "YES" : "NO";
    const tr = sift.el("tr", { dataset: { qualification: j.qualification } },
      sift.el("td", { className: "num" }, j.rank),
      sift.el("td", { className: "num" }, j.round),
      sift.el("td", {}, j.name, " ", sift.el("span", { className: "muted" }, j.qualification)),
      sift.el("td", {}, bar(j.score)),
      sift.el("td", { className: `label ${j.label ? "yes" : "no"}` }, j.label ? "YES" : "NO"),
      withReference ? sift.el("td", { className: j.reference === null ? "" : j.reference === j.label ? "" : "no" }, reference) : null,
      sift.el("td", { className: "verdicts" }, verdictText(j.reviews)),
      sift.el("td", {}, right, " ", wrong));
    tr.addEventListener("click", () => select(index));
    return tr;
  }

  function rowsOf() { return Array.from(document.querySelectorAll("#candidates tbody tr")); }

  function select(index) {
    const rows = rowsOf();
    if (!rows.length) return;
    state.selected = Math.max(0, Math.min(rows.length - 1, index));
    rows.forEach((tr, i) => tr.classList.toggle("selected", i === state.selected));
    rows[state.selected].scrollIntoView({ block: "nearest" });
  }

  // The slider's threshold: the line on every bar, the labels it would flip here and, asked of
  // the server, in the whole store.
  let flipsAsked = 0, flipsTimer = null;
  function setThreshold(t) {
    state.threshold = t;
    document.getElementById("threshold-value").textContent = t.toFixed(3);
    let flips = 0;
    rowsOf().forEach((tr, i) => {
      const j = state.member.judgments[i];
      const flipped = (j.score >= t) !== j.label;
      if (flipped) flips++;
      tr.classList.toggle("flipped", flipped);
      tr.querySelector(".cut").style.left = `calc(${(t * 100).toFixed(2)}% - 1px)`;
    });
    document.getElementById("member-flips").textContent =
      `At ${t.toFixed(3)}: ${flips} of this member's ${state.member.judgments.length} labels flip.`;
    clearTimeout(flipsTimer);
    flipsTimer = setTimeout(async () => {
      const asked = ++flipsAsked;
      try {
        const f = await sift.api(`/api/flips?threshold=${t}`);
        if (asked !== flipsAsked) return;
        document.getElementById("store-flips").textContent =
          `Store: ${f.to_yes + f.to_no} of ${f.pairs} labels flip (${f.to_yes} to YES, ${f.to_no} to NO).`;
      } catch (e) {
        sift.showError(e);
      }
    }, 120);
  }

  async function judge(verdict) {
    const j = state.member && state.member.judgments[state.selected];
    if (!j) return;
    const session = await sift.loadSession();
    if (session.reviewer === null) {
      sift.showError("Reviewing is off: start sift review with --reviewer NAME to record verdicts.");
      return;
    }
    const shown = { label: j.label, score: j.score, threshold: state.member.threshold,
                    artifact_version: state.member.artifact_version };
    try {
      const { review } = await sift.review(state.member.member, j.qualification, verdict, shown);
      j.reviews = j.reviews.filter((r) => r.reviewer !== review.reviewer);
      j.reviews.push({ reviewer: review.reviewer, verdict: review.verdict, reviewed_at: review.reviewed_at, stale: false });
      const tr = rowsOf()[state.selected];
      tr.querySelector(".verdicts").textContent = verdictText(j.reviews);
      tr.classList.toggle("reviewed-right", verdict === "right");
      tr.classList.toggle("reviewed-wrong", verdict === "wrong");
      document.getElementById("status").textContent = `Recorded: ${j.qualification} (${j.name}) is ${verdict}.`;
      sift.showError("");
      if (inQueue) await nextInQueue();
      else select(state.selected + 1);
    } catch (e) {
      if (e.status === 409 && e.body && e.body.current) judgmentChanged(e.body.current).catch(sift.showError);
      else sift.showError(e);
    }
  }

  // The store's judgment of the pair is no longer the one shown: show the member as it is now,
  // the same pair selected, and say what changed.
  async function judgmentChanged(current) {
    const m = await sift.api(`/api/member?id=${encodeURIComponent(state.member.member)}`);
    show(m, await sift.loadSession());
    const at = m.judgments.findIndex((j) => j.qualification === current.qualification);
    select(at < 0 ? 0 : at);
    document.getElementById("status").textContent = "";
    sift.showError(`Not recorded: this judgment changed since the page showed it (sift label ran again). ` +
      `${current.name} (${current.qualification}) is now ${current.label ? "YES" : "NO"}, score ` +
      `${sift.score(current.score)} at threshold ${sift.score(current.threshold)}, artifact ${current.artifact_version}. ` +
      `Look again and give your verdict.`);
  }

  async function nextInQueue() {
    const { pairs } = await sift.api("/api/queue?limit=1");
    if (!pairs.length) {
      document.getElementById("status").textContent = "The queue is empty: every judged pair has a verdict.";
      return;
    }
    const next = pairs[0];
    if (state.member && next.member === state.member.member) {
      select(state.member.judgments.findIndex((j) => j.qualification === next.qualification));
      return;
    }
    window.location.assign(`/member?id=${encodeURIComponent(next.member)}&focus=${encodeURIComponent(next.qualification)}&queue=1`);
  }

  document.addEventListener("keydown", (e) => {
    if (e.ctrlKey || e.metaKey || e.altKey || !state.member) return;
    const target = e.target;
    if (target && (target.tagName === "TEXTAREA" || (target.tagName === "INPUT" && target.type !== "range"))) return;
    if (e.key === "j") select(state.selected + 1);
    else if (e.key === "k") select(state.selected - 1);
    else if (e.key === "y") judge("right");
    else if (e.key === "n") judge("wrong");
    else return;
    e.preventDefault();
  });

  // Shows member m (GET /api/member) at its own threshold.
  function show(m, session) {
    state.member = m;
    document.title = `sift review: ${m.member}`;
    document.getElementById("title").textContent = inQueue ? `Review queue: ${m.member}` : m.member;
    document.getElementById("meta").textContent =
      `${m.rounds} rounds, stopped: ${m.stop_reason} · artifact ${m.artifact_version} · threshold ${sift.score(m.threshold)} · labeled ${m.labeled_at}`;
    document.getElementById("profile").textContent = m.profile === null ? "(this store has no profile text for this member)" : m.profile;
    document.getElementById("reference-head").hidden = !session.reference;
    const body = document.querySelector("#candidates tbody");
    body.replaceChildren(...m.judgments.map((j, i) => row(j, i, session.reference)));
    slider.value = String(m.threshold);
    setThreshold(m.threshold);
  }

  async function load() {
    try {
      const session = await sift.loadSession();
      let id = params.get("id");
      if (!id && inQueue) {
        const { pairs } = await sift.api("/api/queue?limit=1");
        if (!pairs.length) {
          document.getElementById("title").textContent = "Review queue";
          document.getElementById("status").textContent = "The queue is empty: every judged pair has a verdict.";
          return;
        }
        window.location.replace(`/member?id=${encodeURIComponent(pairs[0].member)}&focus=${encodeURIComponent(pairs[0].qualification)}&queue=1`);
        return;
      }
      if (!id) throw new Error("no member: open one from the members list");
      show(await sift.api(`/api/member?id=${encodeURIComponent(id)}`), session);
      const m = state.member;
      const focus = params.get("focus");
      const at = focus ? m.judgments.findIndex((j) => j.qualification === focus) : 0;
      select(at < 0 ? 0 : at);
    } catch (e) {
      sift.showError(e);
    }
  }

  slider.addEventListener("input", () => setThreshold(Number(slider.value)));
  document.getElementById("reset").addEventListener("click", () => {
    if (!state.member) return;
    slider.value = String(state.member.threshold);
    setThreshold(state.member.threshold);
  });
  load();
})();
