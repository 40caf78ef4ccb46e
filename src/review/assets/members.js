// The members page: a paged list, by id or most uncertain first, of the members whose id
// starts with the search text, or whose profile contains it.
"use strict";

(function () {
  const PAGE = 50;
  const state = { search: "", field: "id", order: "member", offset: 0, total: 0 };
  const search = document.getElementById("search");
  const field = document.getElementById("field");
  const order = document.getElementById("order");

  function fromUrl() {
    const p = sift.params();
    state.field = p.has("text") ? "text" : "id";
    state.search = p.get(state.field) || "";
    field.value = state.field;
    state.order = p.get("order") === "uncertainty" ? "uncertainty" : "member";
    state.offset = Math.max(0, parseInt(p.get("offset") || "0", 10) || 0);
    search.value = state.search;
    order.value = state.order;
  }

  function toUrl() {
    const p = new URLSearchParams();
    if (state.search) p.set(state.field, state.search);
    if (state.order !== "member") p.set("order", state.order);
    if (state.offset) p.set("offset", String(state.offset));
    const query = p.toString();
    history.replaceState(null, "", query ? `/?${query}` : "/");
  }

  function row(m, withReference) {
    const link = sift.el("a", { href: `/member?id=${encodeURIComponent(m.member)}` }, m.member);
    return sift.el("tr", {},
      sift.el("td", {}, link),
      sift.el("td", { className: "num" }, m.rounds),
      sift.el("td", { className: "num" }, m.judged),
      sift.el("td", { className: "num" }, m.accepted),
      sift.el("td", { className: "num" }, m.reviewed),
      sift.el("td", {}, m.stop_reason),
      sift.el("td", {}, m.artifact_version),
      sift.el("td", { className: "num" }, sift.score(m.margin)),
      withReference ? sift.el("td", { className: "num" }, m.disagreements === null ? "" : m.disagreements) : null);
  }

  let shown = 0;  // the latest request's number: an older answer arriving late is dropped
  async function load() {
    const asked = ++shown;
    const p = new URLSearchParams({ order: state.order, offset: String(state.offset), limit: String(PAGE) });
    if (state.search) p.set(state.field, state.search);
    try {
      const [session, page] = await Promise.all([sift.loadSession(), sift.api(`/api/members?${p}`)]);
      if (asked !== shown) return;
      state.total = page.total;
      document.getElementById("disagree-head").hidden = !session.reference;
      const body = document.querySelector("#members tbody");
      body.replaceChildren(...page.members.map((m) => row(m, session.reference)));
      const last = Math.min(page.total, state.offset + page.members.length);
      document.getElementById("summary").textContent = !state.search ? `${page.total} members`
        : state.field === "id" ? `${page.total} members whose id starts with "${state.search}"`
        : `${page.total} members whose profile contains "${state.search}"`;
      document.getElementById("page").textContent = page.total ? `${state.offset + 1}–${last} of ${page.total}` : "none";
      document.getElementById("prev").disabled = state.offset === 0;
      document.getElementById("next").disabled = last >= page.total;
      sift.showError("");
      toUrl();
    } catch (e) {
      sift.showError(e);
    }
  }

  let typing = null;
  search.addEventListener("input", () => {
    clearTimeout(typing);
    typing = setTimeout(() => { state.search = search.value; state.offset = 0; load(); }, 200);
  });
  document.getElementById("filters").addEventListener("submit", (e) => {
    e.preventDefault();
    clearTimeout(typing);
    state.search = search.value;
    state.offset = 0;
    load();
  });
  field.addEventListener("change", () => { state.field = field.value; state.offset = 0; if (state.search) load(); });
  order.addEventListener("change", () => { state.order = order.value; state.offset = 0; load(); });
  document.getElementById("prev").addEventListener("click", () => { state.offset = Math.max(0, state.offset - PAGE); load(); });
  document.getElementById("next").addEventListener("click", () => { state.offset += PAGE; load(); });
  fromUrl();
  load();
})();
