// Forget: a dry run lists exactly what would go (facts, turns, entities, facts
// reopened); only then does a button delete it. Changing the selector after the
// preview withdraws the button, so what is confirmed is what was previewed.

import { api, userPath } from "./api.js";
import { count, el, range } from "./dom.js";
import { changed, onChange, state, status, turnsFor } from "./state.js";
import { turnCard } from "./turns.js";

let previewed = null; // the selector the shown preview is for

function factLine(uuid) {
  const fact = state.versions.get(uuid);
  if (!fact) return el("li", {}, el("code", { text: uuid }));
  return el("li", { "data-uuid": uuid }, el("span", { className: "fact-text", text: fact.fact }), " ",
    el("span", { className: "range", text: range(fact.valid_at, fact.invalid_at) }));
}

function list(title, items, empty) {
  return [el("h3", { text: `${title} (${items.length})` }),
    items.length ? el("ul", { className: "plain" }, items) : el("p", { className: "meta", text: empty })];
}

function tally(report) {
  return `${count(report.facts_deleted, "fact")}, ${count(report.episodes_deleted, "turn")} and `
    + count(report.entities_deleted, "entity", "entities");
}

function selector() {
  const kind = document.getElementById("forget-kind").value;
  const value = document.getElementById("forget-value").value.trim();
  return { [kind]: value };
}

async function preview(target) {
  const chosen = selector();
  status("Computing what would be forgotten…");
  let report;
  try {
    report = await api("POST", userPath(state.user, "forget"), { selector: chosen, dry_run: true, confirm: false });
  } catch (error) {
    target.replaceChildren(el("p", { className: "error", text: `Cannot preview: ${error.message}` }));
    status("Preview failed.", "error");
    return;
  }
  const turns = report.turn_ids.length ? await turnsFor([...report.turn_ids]).catch(() => []) : [];
  const nothing = !report.facts.length && !report.episodes.length && !report.entities.length;
  const parts = [el("p", { className: "summary" }, nothing ? "Nothing matches: nothing would be deleted."
    : `This would delete ${tally(report)}.`)];
  if (!nothing) {
    parts.push(...list("Facts", report.facts.map(factLine), "No fact."));
    parts.push(...list("Turns", turns.length ? turns.map((t) => el("li", {}, turnCard(t)))
      : report.turn_ids.map((id) => el("li", {}, el("code", { text: id }))), "No turn."));
    parts.push(...list("Entities", report.entities.map((name) => el("li", { text: name })), "No entity."));
    if (report.facts_reopened?.length) {
      parts.push(...list("Facts that would become open again (what closed them goes)", report.facts_reopened.map(factLine), ""));
    }
    const confirm = el("button", { type: "button", className: "danger", id: "forget-confirm",
      text: `Forget ${tally(report)}` });
    confirm.addEventListener("click", () => run(target, chosen));
    parts.push(el("p", {}, confirm));
  }
  previewed = JSON.stringify(chosen);
  target.replaceChildren(...parts);
  status(nothing ? "Nothing to forget." : "Preview ready: check it, then confirm.");
}

async function run(target, chosen) {
  if (JSON.stringify(selector()) !== previewed) {
    target.replaceChildren(el("p", { className: "error", text: "The selector changed since the preview; preview again." }));
    return;
  }
  status("Forgetting…");
  try {
    const report = await api("POST", userPath(state.user, "forget"), { selector: chosen, dry_run: false, confirm: true });
    target.replaceChildren(el("p", { className: "done", role: "note",
      text: `Forgotten: ${tally(report)}${report.compacted ? "; the data files were compacted" : ""}.` }));
    previewed = null;
    status("Forgotten.");
    changed("forget");
  } catch (error) {
    target.replaceChildren(el("p", { className: "error", text: `Forget failed: ${error.message}` }));
    status("Forget failed.", "error");
  }
}

export function setupForget() {
  const form = document.getElementById("forget-form");
  const target = document.getElementById("forget-preview");
  form.addEventListener("submit", (event) => { event.preventDefault(); preview(target); });
  const withdraw = () => {
    if (previewed !== null && JSON.stringify(selector()) !== previewed) {
      previewed = null;
      target.replaceChildren(el("p", { className: "meta", text: "Selector changed: preview again." }));
    }
  };
  document.getElementById("forget-kind").addEventListener("change", withdraw);
  document.getElementById("forget-value").addEventListener("input", withdraw);
  document.addEventListener("graphmem:forget", (event) => {
    document.getElementById("forget-kind").value = event.detail.kind;
    document.getElementById("forget-value").value = event.detail.value;
    withdraw();
    document.getElementById("forget").scrollIntoView({ block: "start" });
    document.getElementById("forget-value").focus();
  });
  onChange((reason) => {
    if (reason === "user") {
      previewed = null;
      target.replaceChildren();
    }
  });
}
