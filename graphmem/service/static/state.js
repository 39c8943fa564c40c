// What the page shares between its parts: the chosen user, the fact versions
// last loaded (so a forget preview can show a fact's text), and the status line.

import { api, userPath } from "./api.js";

export const state = {
  user: null,
  versions: new Map(), // fact uuid -> FactRecord
  turns: new Map(), // turn id -> turn row
};

const listeners = new Set();

/** Ask to be told when the memory changed (a forget) or the user changed. */
export function onChange(listener) {
  listeners.add(listener);
}

export function changed(reason) {
  for (const listener of listeners) listener(reason);
}

export function status(text, kind = "info") {
  const node = document.getElementById("status");
  node.textContent = text;
  node.dataset.kind = kind;
}

/** The shown status of a fact: archived and expired override the stored status. */
export function statusOf(fact, now = Date.now()) {
  if (fact.archived_at) return "archived";
  if (fact.expires_at && Date.parse(fact.expires_at) <= now) return "expired";
  return fact.status;
}

/** Turn rows for these turn ids (a fact's `source_turn_ids`), each fetched once. */
export async function turnsFor(ids) {
  const missing = ids.filter((id) => !state.turns.has(id));
  if (missing.length) {
    const rows = await api("GET", userPath(state.user, "turns", { turn_id: missing }));
    for (const row of rows) state.turns.set(row.turn_id, row);
  }
  return ids.map((id) => state.turns.get(id)).filter(Boolean);
}
