// An entity's timeline: every version of its facts as a bar over its validity,
// coloured by status. "As of" draws a line and lists what was true then; "known at"
// redraws the versions and statuses as graphmem knew them at that date.

import { api, userPath } from "./api.js";
import { clip, day, el, endOfDay, range, svg } from "./dom.js";
import { highlightFact } from "./facts.js";
import { onChange, state, status, statusOf } from "./state.js";

const WIDTH = 960;
const LABEL = 230;
const RIGHT = 20;
const ROW = 30;
const TOP = 34;
const DAY_MS = 86_400_000;

const ms = (iso) => Date.parse(iso);

function byPredicateThenStart(a, b) {
  return a.predicate.localeCompare(b.predicate) || (a.valid_at ?? "").localeCompare(b.valid_at ?? "");
}

/** The time span to draw: every start, end and learning date, and the chosen moments, padded. */
export function span(facts, moments) {
  const times = facts.flatMap((f) => [f.valid_at, f.invalid_at, f.created_at]).filter(Boolean).map(ms)
    .concat(moments.filter((m) => m !== undefined));
  let lo = Math.min(...times);
  let hi = Math.max(...times, Date.now());
  if (!Number.isFinite(lo)) lo = hi - 365 * DAY_MS;
  const pad = Math.max((hi - lo) * 0.04, 7 * DAY_MS);
  return [lo - pad, hi + pad];
}

/** First-of-month ticks (or years over a long span), at most about eight. */
export function ticks(lo, hi) {
  const months = (hi - lo) / (30.44 * DAY_MS);
  const step = [1, 2, 3, 6, 12, 24, 60, 120].find((s) => months / s <= 8) ?? 240;
  const start = new Date(lo);
  let y = start.getUTCFullYear();
  let m = start.getUTCMonth() + 1;
  if (step >= 12) { y += m > 0 ? 1 : 0; m = 0; } else { m = Math.ceil(m / step) * step; }
  const out = [];
  for (let t = Date.UTC(y, m, 1); t <= hi; t = Date.UTC(y, m, 1)) {
    out.push(t);
    m += step;
  }
  return out;
}

function tickLabel(t, lo, hi) {
  const iso = new Date(t).toISOString();
  return hi - lo > 4 * 365 * DAY_MS ? iso.slice(0, 4) : iso.slice(0, 7);
}

function bar(fact, x, y, trueThen, lo, hi) {
  const shown = statusOf(fact);
  const x0 = x(fact.valid_at ? ms(fact.valid_at) : lo);
  const x1 = x(fact.invalid_at ? ms(fact.invalid_at) : hi);
  const classes = ["bar", `status-${shown}`];
  if (!fact.valid_at) classes.push("open-start");
  if (!fact.invalid_at) classes.push("open-end");
  if (trueThen.has(fact.uuid)) classes.push("true-then");
  const label = `${fact.fact} — ${shown}, valid ${range(fact.valid_at, fact.invalid_at)}`;
  const g = svg("g", { className: "version", "data-uuid": fact.uuid, "data-status": shown, tabindex: "0",
    role: "button", "aria-label": `${label}. Show in the facts table.` },
  svg("title", { text: label }),
  svg("text", { x: LABEL - 8, y: y + ROW / 2 + 4, "text-anchor": "end", className: "bar-label",
    text: clip(`${fact.predicate.toLowerCase()}: ${fact.object}`, 30) }),
  svg("rect", { x: x0, y: y + 5, width: Math.max(x1 - x0, 3), height: ROW - 10, rx: 3, className: classes.join(" ") }));
  const open = () => highlightFact(fact.uuid);
  g.addEventListener("click", open);
  g.addEventListener("keydown", (event) => { if (event.key === "Enter" || event.key === " ") { event.preventDefault(); open(); } });
  return g;
}

/** The chart for these versions; `trueThen` holds the uuids true at `asOf`. */
export function chart(entity, facts, trueThen, asOf, knownAt) {
  const [lo, hi] = span(facts, [asOf, knownAt]);
  const x = (t) => LABEL + ((t - lo) / (hi - lo)) * (WIDTH - LABEL - RIGHT);
  const height = TOP + Math.max(facts.length, 1) * ROW + 12;
  const title = `Timeline of ${entity}: ${facts.length} fact version${facts.length === 1 ? "" : "s"}`;
  const root = svg("svg", { viewBox: `0 0 ${WIDTH} ${height}`, className: "timeline", role: "group", "aria-label": title });
  for (const t of ticks(lo, hi)) {
    root.append(svg("line", { x1: x(t), x2: x(t), y1: TOP - 6, y2: height - 8, className: "tick" }),
      svg("text", { x: x(t), y: TOP - 12, "text-anchor": "middle", className: "tick-label", text: tickLabel(t, lo, hi) }));
  }
  facts.forEach((fact, i) => root.append(bar(fact, x, TOP + i * ROW, trueThen, lo, hi)));
  const when = asOf ?? Date.now();
  root.append(svg("line", { x1: x(when), x2: x(when), y1: TOP - 6, y2: height - 8, className: "as-of-line" }),
    svg("text", { x: Math.min(x(when) + 4, WIDTH - 90), y: height - 2, className: "as-of-label",
      text: asOf ? `as of ${day(new Date(asOf).toISOString())}` : "now" }));
  return root;
}

function legend() {
  return el("p", { className: "legend" }, ["current", "superseded", "ended", "expired", "archived"].map((s) =>
    el("span", { className: "key" }, el("span", { className: `swatch status-${s}`, "aria-hidden": "true" }), s)),
  el("span", { className: "key" }, el("span", { className: "swatch true-then", "aria-hidden": "true" }), "true at the “as of” date"));
}

async function draw() {
  const entity = document.getElementById("timeline-entity").value.trim();
  if (!entity) return;
  const asOfValue = document.getElementById("timeline-as-of").value;
  const knownAtValue = document.getElementById("timeline-known-at").value;
  const asOf = endOfDay(asOfValue);
  const knownAt = endOfDay(knownAtValue);
  const chartBox = document.getElementById("timeline-chart");
  const thenBox = document.getElementById("timeline-then");
  try {
    const history = await api("GET", userPath(state.user, "history", { entity }));
    const ours = new Set(history.versions.map((v) => v.uuid));
    // Versions and statuses as known at `knownAt` (a later version is not drawn at all).
    const known = knownAt ? await api("GET", userPath(state.user, "versions", { known_at: knownAt })) : history.versions;
    const versions = known.filter((v) => ours.has(v.uuid)).sort(byPredicateThenStart);
    const then = (await api("GET", userPath(state.user, "facts", { valid_at: asOf, known_at: knownAt })))
      .filter((f) => ours.has(f.uuid));
    const trueThen = new Set(then.map((f) => f.uuid));
    chartBox.replaceChildren(legend(), chart(history.subject, versions, trueThen, asOf && ms(asOf), knownAt && ms(knownAt)));
    if (!versions.length) {
      chartBox.append(el("p", { className: "meta", text: knownAtValue
        ? `On ${knownAtValue} graphmem knew no fact about ${history.subject}.` : `No fact about ${history.subject}.` }));
    }
    const heading = `True ${asOfValue ? `on ${asOfValue}` : "now"}${knownAtValue ? `, as known on ${knownAtValue}` : ""}:`;
    thenBox.replaceChildren(el("h3", { text: heading }),
      then.length ? el("ul", { className: "then" }, then.map((f) =>
        el("li", { "data-uuid": f.uuid }, el("span", { className: "fact-text", text: f.fact }), " ",
          el("span", { className: "range", text: range(f.valid_at, f.invalid_at) }))))
        : el("p", { className: "meta", text: "Nothing recorded about it for that moment." }));
    status(`Timeline of ${history.subject} drawn.`);
  } catch (error) {
    chartBox.replaceChildren();
    thenBox.replaceChildren(el("p", { className: "error", text: `No timeline: ${error.message}` }));
  }
}

export function setupTimeline() {
  const form = document.getElementById("timeline-form");
  form.addEventListener("submit", (event) => { event.preventDefault(); draw(); });
  for (const id of ["timeline-as-of", "timeline-known-at"]) document.getElementById(id).addEventListener("change", draw);
  document.addEventListener("graphmem:timeline", (event) => {
    document.getElementById("timeline-entity").value = event.detail.entity;
    document.getElementById("timeline").scrollIntoView({ block: "start" });
    draw();
  });
  onChange((reason) => {
    if (reason === "user") {
      document.getElementById("timeline-chart").replaceChildren();
      document.getElementById("timeline-then").replaceChildren();
    } else if (document.getElementById("timeline-entity").value) {
      draw();
    }
  });
}
