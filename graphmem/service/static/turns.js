// One stored turn as a person reads it: who said it, when, and the words.

import { el, moment } from "./dom.js";

/** A turn row from /v1/users/{u}/turns (or a packet's evidence turn). */
export function turnCard(turn) {
  const when = turn.session_time ?? turn.valid_at;
  const meta = [
    el("strong", { className: "speaker", text: turn.speaker || "unknown speaker" }),
    " · ",
    el("time", { datetime: when ?? "", text: when ? moment(when) : "undated" }),
  ];
  if (turn.session_id) meta.push(" · session ", el("code", { text: turn.session_id }));
  if (turn.turn_id) meta.push(" · turn ", el("code", { text: turn.turn_id }));
  return el("figure", { className: "turn" },
    el("figcaption", {}, meta),
    el("blockquote", { className: "turn-text", text: turn.content ?? "" }));
}
