// DOM helpers. Data only ever reaches the page as text nodes or attribute values:
// the memory holds whatever people said, hostile text included, so never as markup.

const SVG_NS = "http://www.w3.org/2000/svg";

function fill(node, attrs, children) {
  for (const [key, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    if (key === "text") node.textContent = String(value);
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key === "className" ? "class" : key, value === true ? "" : String(value));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

/** An HTML element: el("td", {className: "x"}, "text", otherNode). */
export function el(tag, attrs = {}, ...children) {
  return fill(document.createElement(tag), attrs, children);
}

/** An SVG element, same calling convention as `el`. */
export function svg(tag, attrs = {}, ...children) {
  return fill(document.createElementNS(SVG_NS, tag), attrs, children);
}

/** "2024-03-10" for an ISO time (UTC), "…" for none. */
export function day(iso) {
  return iso ? String(iso).slice(0, 10) : "…";
}

/** "2024-03-10 14:05 UTC", or the day alone at midnight. */
export function moment(iso) {
  if (!iso) return "…";
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return String(iso);
  const text = d.toISOString();
  const time = text.slice(11, 16);
  return time === "00:00" ? text.slice(0, 10) : `${text.slice(0, 10)} ${time} UTC`;
}

/** "2024-03-10 → …": a validity range. */
export function range(from, to) {
  return `${day(from)} → ${day(to)}`;
}

/** A date input's value as an ISO instant at the end of that UTC day, or undefined.
 *  The end of the day, so "as of 2024-08-01" includes what became true that day. */
export function endOfDay(value) {
  return value ? `${value}T23:59:59+00:00` : undefined;
}

export function show(node, visible) {
  node.hidden = !visible;
}

/** "1 fact", "2 facts"; "1 entity", "3 entities". */
export function count(n, noun, plural = `${noun}s`) {
  return `${n} ${n === 1 ? noun : plural}`;
}

/** `text` cut to `max` characters with an ellipsis. */
export function clip(text, max) {
  const value = String(text);
  return value.length > max ? `${value.slice(0, max - 1)}…` : value;
}
