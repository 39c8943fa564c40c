// The facts table: every version with its status, validity, when graphmem learnt
// it, what superseded it (a link to that row) and the turns that said it.

import { api, userPath } from "./api.js";
import { count as plural, day, el, moment, range } from "./dom.js";
import { onChange, state, status, statusOf, turnsFor } from "./state.js";
import { turnCard } from "./turns.js";

const COLUMNS = 7;
const MAX_ROWS = 500; // beyond this a filter is the way in; thousands of rows help nobody

function byEntityThenTime(a, b) {
  return a.subject.localeCompare(b.subject) || a.predicate.localeCompare(b.predicate)
    || (a.valid_at ?? "").localeCompare(b.valid_at ?? "") || a.created_at.localeCompare(b.created_at);
}

/** Scroll to a fact's row and highlight it; false when the table does not show it. */
export function highlightFact(uuid) {
  const row = document.getElementById(`fact-${uuid}`);
  if (!row) return false;
  for (const old of document.querySelectorAll("#facts-table tr.highlight")) old.classList.remove("highlight");
  row.classList.add("highlight");
  row.scrollIntoView({ block: "center" });
  row.focus({ preventScroll: true });
  return true;
}

async function toggleSources(button, fact, row) {
  const id = `sources-${fact.uuid}`;
  const open = document.getElementById(id);
  if (open) {
    open.remove();
    button.setAttribute("aria-expanded", "false");
    return;
  }
  button.setAttribute("aria-expanded", "true");
  const cell = el("td", { colspan: COLUMNS }, el("p", { className: "meta", text: "Loading the turns…" }));
  row.after(el("tr", { id, className: "sources-row" }, cell));
  try {
    const turns = await turnsFor([...fact.source_turn_ids]);
    cell.replaceChildren(el("h3", { className: "visually-hidden", text: `Sources of: ${fact.fact}` }),
      ...(turns.length ? turns.map(turnCard) : [el("p", { className: "meta", text: "No stored turn (added directly)." })]));
  } catch (error) {
    cell.replaceChildren(el("p", { className: "error", text: `Could not load the turns: ${error.message}` }));
  }
}

function successorCell(fact) {
  if (!fact.superseded_by) return el("td", { className: "successor-cell" }, "");
  const link = el("a", {
    href: `#fact-${encodeURIComponent(fact.superseded_by)}`, className: "successor",
    text: fact.superseded_by_fact || "a newer fact",
  });
  link.addEventListener("click", (event) => {
    event.preventDefault();
    if (!highlightFact(fact.superseded_by)) status("The superseding fact is not in the table (filtered out?).", "error");
  });
  return el("td", { className: "successor-cell" }, link);
}

function row(fact) {
  const shown = statusOf(fact);
  const tr = el("tr", { id: `fact-${fact.uuid}`, tabindex: "-1", "data-status": shown });
  const count = fact.source_turn_ids.length;
  const sources = count === 0 ? el("span", { className: "meta", text: "none (added directly)" })
    : el("button", {
      type: "button", className: "sources", "aria-expanded": "false", "aria-controls": `sources-${fact.uuid}`,
      "aria-label": `Sources of: ${fact.fact}`, text: plural(count, "turn"),
    });
  if (count) sources.addEventListener("click", () => toggleSources(sources, fact, tr));
  const timeline = el("button", { type: "button", className: "quiet", text: "Timeline",
    "aria-label": `Timeline of ${fact.subject}` });
  timeline.addEventListener("click", () =>
    document.dispatchEvent(new CustomEvent("graphmem:timeline", { detail: { entity: fact.subject } })));
  const forget = el("button", { type: "button", className: "quiet", text: "Forget…",
    "aria-label": `Forget: ${fact.fact}` });
  forget.addEventListener("click", () =>
    document.dispatchEvent(new CustomEvent("graphmem:forget", { detail: { kind: "fact", value: fact.uuid } })));
  const known = [el("time", { datetime: fact.created_at, text: moment(fact.created_at) })];
  if (fact.expired_at) {
    known.push(el("span", { className: "meta", title: `belief revised ${moment(fact.expired_at)}`,
      text: `revised ${day(fact.expired_at)}` }));
  }
  tr.append(
    el("td", { className: "fact" }, el("span", { className: "fact-text", text: fact.fact }),
      el("span", { className: "triple", text: `${fact.subject} · ${fact.predicate} · ${fact.object}` })),
    el("td", {}, el("span", { className: `badge status-${shown}`, text: shown })),
    el("td", { className: "nowrap", text: range(fact.valid_at, fact.invalid_at) }),
    el("td", { className: "known" }, known),
    successorCell(fact),
    el("td", {}, sources),
    el("td", {}, el("div", { className: "actions" }, timeline, forget)),
  );
  return tr;
}

function render() {
  const needle = document.getElementById("facts-filter").value.trim().toLowerCase();
  const currentOnly = document.getElementById("facts-current-only").checked;
  const facts = [...state.versions.values()]
    .filter((f) => !currentOnly || statusOf(f) === "current")
    .filter((f) => !needle || `${f.fact} ${f.subject} ${f.object}`.toLowerCase().includes(needle))
    .sort(byEntityThenTime);
  const body = document.querySelector("#facts-table tbody");
  const rows = facts.slice(0, MAX_ROWS).map(row);
  if (!facts.length) rows.push(el("tr", {}, el("td", { colspan: COLUMNS, className: "meta", text: "No facts." })));
  if (facts.length > MAX_ROWS) {
    rows.push(el("tr", {}, el("td", { colspan: COLUMNS, className: "meta",
      text: `Showing ${MAX_ROWS} of ${facts.length} facts: filter to see the others.` })));
  }
  body.replaceChildren(...rows);
  const names = new Set([...state.versions.values()].flatMap((f) => [f.subject, f.object]));
  document.getElementById("entity-names").replaceChildren(...[...names].sort().map((n) => el("option", { value: n })));
}

export async function loadFacts() {
  state.versions = new Map();
  try {
    const facts = await api("GET", userPath(state.user, "versions"));
    state.versions = new Map(facts.map((f) => [f.uuid, f]));
  } catch (error) {
    status(`Could not load the facts: ${error.message}`, "error");
  }
  render();
}

export function setupFacts() {
  document.getElementById("facts-filter").addEventListener("input", render);
  document.getElementById("facts-current-only").addEventListener("change", render);
  document.getElementById("facts-reload").addEventListener("click", loadFacts);
  onChange(() => {
    state.turns = new Map();
    loadFacts();
  });
}
