// What every page of sift review shares. Data from the store is only ever put into the page
// as text (textContent, attribute values set by property): never parsed as HTML.
"use strict";

const sift = {};

// GET or POST the JSON API; a 401 goes to the login page; any other error throws its message,
// with the response's status and body as the error's .status and .body.
sift.api = async function (path, options = {}) {
  const response = await fetch(path, Object.assign({ credentials: "same-origin", headers: {} }, options));
  if (response.status === 401) {
    window.location.assign("/login");
    throw new Error("not logged in");
  }
  let body = null;
  try {
    body = await response.json();
  } catch (e) {
    throw new Error(`${path}: ${response.status} ${response.statusText}`);
  }
  if (!response.ok) {
    const error = new Error(body && body.message ? body.message : `${path}: ${response.status}`);
    error.status = response.status;
    error.body = body;
    throw error;
  }
  return body;
};

sift.session = null;
sift.loadSession = async function () {
  if (!sift.session) sift.session = await sift.api("/api/session");
  const where = document.getElementById("session");
  if (where) {
    const s = sift.session;
    where.textContent = `${s.members} members, ${s.pairs} pairs · ` +
      (s.reviewer === null ? "read-only" : `reviewing as ${s.reviewer}`);
  }
  return sift.session;
};

// POST a verdict: {member, qualification, verdict: "right" | "wrong"} and what the page showed
// of the pair, shown = {label, score, threshold, artifact_version}: the server records it only
// while the store still holds that judgment, and answers 409 with the current one otherwise.
sift.review = async function (member, qualification, verdict, shown) {
  const session = await sift.loadSession();
  return sift.api("/api/review", {
    method: "POST",
    headers: { "Content-Type": "application/json", "X-CSRF-Token": session.csrf_token },
    body: JSON.stringify(Object.assign({ member, qualification, verdict }, shown)),
  });
};

// el("td", {className: "num"}, "text", child...): strings become text nodes.
sift.el = function (tag, properties = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(properties)) {
    if (key === "dataset") Object.assign(node.dataset, value);
    else node[key] = value;
  }
  for (const child of children) {
    if (child === null || child === undefined) continue;
    node.append(typeof child === "string" || typeof child === "number" ? document.createTextNode(String(child)) : child);
  }
  return node;
};

sift.svg = function (tag, attributes = {}, text = null) {
  const node = document.createElementNS("http://www.w3.org/2000/svg", tag);
  for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, String(value));
  if (text !== null) node.textContent = String(text);
  return node;
};

sift.score = (x) => (x === null || x === undefined ? "" : Number(x).toFixed(3));

sift.showError = function (error) {
  const where = document.getElementById("error");
  if (where) where.textContent = String(error && error.message ? error.message : error);
};

sift.params = () => new URLSearchParams(window.location.search);
