// Search: the packet as a person reads it (facts with their validity and status,
// evidence turns with dates and speakers), or a plain "nothing was ever said".

import { api, userPath } from "./api.js";
import { el, endOfDay, range } from "./dom.js";
import { onChange, state, status } from "./state.js";
import { turnCard } from "./turns.js";

function badge(name) {
  return el("span", { className: `badge status-${name}`, text: name });
}

function factItem(fact) {
  const bits = [badge(fact.status), " ", el("span", { className: "fact-text", text: fact.fact }), " ",
    el("span", { className: "range", text: `valid ${range(fact.valid_at, fact.invalid_at)}` })];
  if (fact.superseded_by_fact) {
    bits.push(el("span", { className: "successor" }, " superseded by: ", el("q", { text: fact.superseded_by_fact })));
  }
  if (fact.source_turn_ids?.length) {
    const more = (fact.sources_total ?? 0) - fact.source_turn_ids.length;
    bits.push(el("span", { className: "sources-note" },
      ` · turns ${fact.source_turn_ids.join(", ")}${more > 0 ? ` +${more} more` : ""}`));
  }
  return el("li", { "data-uuid": fact.uuid }, bits);
}

function entityItem(entity) {
  return el("li", {}, el("strong", { text: entity.name }), entity.summary ? `: ${entity.summary}` : "");
}

function section(title, items) {
  return items.length ? [el("h3", { text: title }), el("ol", { className: "plain" }, items)] : [];
}

/** Render a search response (the packet, with its prompt text) into `target`. */
export function renderPacket(target, data) {
  const packet = data.packet ?? data;
  const prompt = data.prompt ?? packet.prompt ?? data.prompt_text ?? packet.prompt_text;
  const parts = [el("p", { className: "meta" }, `Mode: ${packet.mode ?? "current"}`,
    packet.tokens ? ` · about ${packet.tokens} tokens` : "")];
  if (packet.abstain) {
    parts.push(el("p", { className: "abstain", role: "note" },
      el("strong", { text: "No memory of that. " }),
      `Nothing relevant was ever said${packet.reason ? ` (${packet.reason})` : ""}.`));
  } else {
    parts.push(...section("Facts", (packet.facts ?? []).map(factItem)));
    parts.push(...section("Evidence turns", (packet.episodes ?? []).map((t) => el("li", {}, turnCard(t)))));
    parts.push(...section("Entities", (packet.entities ?? []).map(entityItem)));
  }
  if (prompt) {
    parts.push(el("details", { className: "prompt" }, el("summary", { text: "The prompt text an agent gets" }),
      el("pre", { text: prompt })));
  }
  target.replaceChildren(...parts);
}

export function setupSearch() {
  const form = document.getElementById("search-form");
  const target = document.getElementById("packet");
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const limit = Number(document.getElementById("search-limit").value || 10);
    const body = {
      query: document.getElementById("query").value,
      now: endOfDay(document.getElementById("search-now").value),
      as_of: endOfDay(document.getElementById("search-as-of").value),
      known_at: endOfDay(document.getElementById("search-known-at").value),
      limit,
    };
    status("Searching…");
    try {
      renderPacket(target, await api("POST", userPath(state.user, "search"), body));
      status("Search done.");
    } catch (error) {
      target.replaceChildren();
      status(`Search failed: ${error.message}`, "error");
    }
  });
  // A packet shown before a forget may quote what was forgotten, and one for another user is stale.
  onChange(() => target.replaceChildren());
}
