// The calibration page: from labeled pairs (the --reference rows joined with the stored
// scores, else the reviewed pairs with their true labels), the PR curve and the score
// histogram, both in inline SVG, with the threshold marked and movable; the reliability
// diagram of the same pairs (the server bins them: 15 equal-width bins of the score and, with
// a calibration map in sift.json, of its probability); and sift.json's calibration history.
"use strict";

(function () {
  const slider = document.getElementById("threshold");
  const BINS = 20;
  let points = [];   // [score, label 0/1], by score descending
  let curve = [];    // [{t, precision, recall}] at each distinct score, descending
  let positives = 0;

  // Precision and recall when label = score >= t.
  function at(t) {
    let tp = 0, fp = 0;
    for (const [s, l] of points) {
      if (s < t) break;
      if (l) tp++; else fp++;
    }
    const precision = tp + fp ? tp / (tp + fp) : 1;
    const recall = positives ? tp / positives : 0;
    const f1 = precision + recall ? (2 * precision * recall) / (precision + recall) : 0;
    return { tp, fp, precision, recall, f1 };
  }

  function buildCurve() {
    curve = [];
    let tp = 0, fp = 0;
    for (let i = 0; i < points.length; i++) {
      if (points[i][1]) tp++; else fp++;
      if (i + 1 < points.length && points[i + 1][0] === points[i][0]) continue;
      curve.push({ t: points[i][0], precision: tp / (tp + fp), recall: positives ? tp / positives : 0 });
    }
  }

  // PR plot: 40 px margins, 260 px square.
  const X = (r) => 40 + r * 260, Y = (p) => 280 - p * 260;
  function drawPr(t) {
    const svg = document.getElementById("pr");
    const nodes = [
      sift.svg("line", { class: "axis", x1: 40, y1: 280, x2: 300, y2: 280 }),
      sift.svg("line", { class: "axis", x1: 40, y1: 20, x2: 40, y2: 280 }),
      sift.svg("text", { x: 150, y: 305 }, "recall"),
      sift.svg("text", { x: 4, y: 150 }, "precision"),
      sift.svg("text", { x: 36, y: 295 }, "0"), sift.svg("text", { x: 296, y: 295 }, "1"),
      sift.svg("text", { x: 28, y: 24 }, "1"),
    ];
    if (curve.length) {
      const d = curve.map((c, i) => `${i ? "L" : "M"}${X(c.recall).toFixed(1)},${Y(c.precision).toFixed(1)}`).join(" ");
      nodes.push(sift.svg("path", { class: "curve", d }));
      const here = at(t);
      nodes.push(sift.svg("circle", { class: "point", cx: X(here.recall), cy: Y(here.precision), r: 5 }));
    }
    svg.replaceChildren(...nodes);
  }

  // Histogram: bins of width 1/BINS over [0, 1]; positives up from the middle, negatives down.
  function drawHistogram(t) {
    const svg = document.getElementById("histogram");
    const pos = new Array(BINS).fill(0), neg = new Array(BINS).fill(0);
    for (const [s, l] of points) (l ? pos : neg)[Math.min(BINS - 1, Math.floor(s * BINS))]++;
    const most = Math.max(1, ...pos, ...neg);
    const left = 30, width = 380, middle = 150, half = 120, w = width / BINS;
    const nodes = [sift.svg("line", { class: "axis", x1: left, y1: middle, x2: left + width, y2: middle })];
    for (let b = 0; b < BINS; b++) {
      const hp = (pos[b] / most) * half, hn = (neg[b] / most) * half;
      if (hp) nodes.push(sift.svg("rect", { class: "pos", x: left + b * w + 1, y: middle - hp, width: w - 2, height: hp }));
      if (hn) nodes.push(sift.svg("rect", { class: "neg", x: left + b * w + 1, y: middle, width: w - 2, height: hn }));
    }
    const x = left + t * width;
    nodes.push(sift.svg("line", { class: "cut", x1: x, y1: 20, x2: x, y2: 280 }));
    nodes.push(sift.svg("text", { x: left - 4, y: 300 }, "0"), sift.svg("text", { x: left + width - 6, y: 300 }, "1"));
    nodes.push(sift.svg("text", { x: left, y: 15 }, `positives (max ${most} per bin)`), sift.svg("text", { x: left + 16, y: 300 }, "negatives"));
    svg.replaceChildren(...nodes);
  }

  // Reliability plot, on the PR plot's axes: the YES rate of each non-empty bin at its mean.
  function drawReliability(r) {
    const svg = document.getElementById("reliability");
    const nodes = [
      sift.svg("line", { class: "axis", x1: 40, y1: 280, x2: 300, y2: 280 }),
      sift.svg("line", { class: "axis", x1: 40, y1: 20, x2: 40, y2: 280 }),
      sift.svg("line", { class: "diagonal", x1: X(0), y1: Y(0), x2: X(1), y2: Y(1) }),
      sift.svg("text", { x: 120, y: 305 }, "mean score per bin"),
      sift.svg("text", { x: 4, y: 150 }, "YES rate"),
      sift.svg("text", { x: 36, y: 295 }, "0"), sift.svg("text", { x: 296, y: 295 }, "1"),
      sift.svg("text", { x: 28, y: 24 }, "1"),
    ];
    const line = (curve, cls) => {
      const bins = curve.bins.filter((b) => b.n > 0);
      if (!bins.length) return;
      const d = bins.map((b, i) => `${i ? "L" : "M"}${X(b.mean).toFixed(1)},${Y(b.yes_rate).toFixed(1)}`).join(" ");
      nodes.push(sift.svg("path", { class: cls, d }));
    };
    let summary = "No labeled pairs yet.";
    if (r) {
      line(r.raw, "curve");
      summary = `Score: ECE ${r.raw.ece.toFixed(4)}, Brier ${r.raw.brier.toFixed(4)} (${r.ece_bins} bins).`;
      if (r.calibrated) {
        line(r.calibrated, "calibrated");
        summary += ` Calibrated probability: ECE ${r.calibrated.ece.toFixed(4)}, Brier ${r.calibrated.brier.toFixed(4)}.`;
      }
    }
    svg.replaceChildren(...nodes);
    document.getElementById("reliability-summary").textContent = summary;
  }

  function setThreshold(t) {
    document.getElementById("threshold-value").textContent = t.toFixed(3);
    drawPr(t);
    drawHistogram(t);
    const here = at(t);
    document.getElementById("at-threshold").textContent = points.length
      ? `At ${t.toFixed(3)}: precision ${here.precision.toFixed(3)}, recall ${here.recall.toFixed(3)}, F1 ${here.f1.toFixed(3)} (${here.tp + here.fp} of ${points.length} pairs labeled YES).`
      : "No labeled pairs yet: give --reference rows, or review pairs.";
  }

  function historyRow(c) {
    const cell = (v, num) => sift.el("td", num ? { className: "num" } : {}, v === undefined || v === null ? "" : typeof v === "number" ? (Number.isInteger(v) ? String(v) : v.toFixed(3)) : String(v));
    return sift.el("tr", {}, cell(c.version), cell(c.threshold, true), cell(c.previous_threshold, true), cell(c.target),
      cell(c.precision, true), cell(c.recall, true), cell(c.f1, true), cell(c.n_items, true), cell(c.calibrated_at));
  }

  async function load() {
    try {
      await sift.loadSession();
      const c = await sift.api("/api/calibration");
      const useReference = c.reference !== null && c.reference.length > 0;
      points = (useReference ? c.reference : c.reviewed).slice().sort((a, b) => b[0] - a[0]);
      positives = points.filter((p) => p[1]).length;
      buildCurve();
      drawReliability(c.reliability);
      document.getElementById("source").textContent = useReference
        ? `${points.length} pairs of the --reference rows, scored as stored (${positives} positive).`
        : `${points.length} reviewed pairs, with the labels the reviews make true (${positives} positive).`;
      document.querySelector("#history tbody").replaceChildren(...(Array.isArray(c.history) ? c.history : []).map(historyRow));
      slider.value = String(c.threshold);
      setThreshold(c.threshold);
    } catch (e) {
      sift.showError(e);
    }
  }

  slider.addEventListener("input", () => setThreshold(Number(slider.value)));
  load();
})();
