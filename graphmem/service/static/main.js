// The page: ask for the API key once (kept in sessionStorage), list the users the
// key covers, and wire the four parts to the chosen user.

import { api, ApiError, key } from "./api.js";
import { el } from "./dom.js";
import { loadFacts, setupFacts } from "./facts.js";
import { setupForget } from "./forget.js";
import { setupSearch } from "./search.js";
import { changed, state, status } from "./state.js";
import { setupTimeline } from "./timeline.js";

const $ = (id) => document.getElementById(id);

function signedOut(message) {
  key.clear();
  $("key-form").hidden = false;
  $("session").hidden = true;
  $("app").hidden = true;
  status(message, message ? "error" : "info");
  $("api-key").focus();
}

async function chooseUser(user) {
  state.user = user;
  state.turns = new Map();
  changed("user");
  await loadFacts();
}

async function start() {
  let users;
  try {
    users = await api("GET", "/v1/users");
  } catch (error) {
    if (error instanceof ApiError && (error.status === 401 || error.status === 403)) {
      signedOut(`That key was refused: ${error.message}`);
    } else {
      status(`Cannot reach the API: ${error.message}`, "error");
    }
    return;
  }
  const list = (users.users ?? users).map((u) => (typeof u === "string" ? u : u.user_id ?? u.id));
  $("key-form").hidden = true;
  $("session").hidden = false;
  $("app").hidden = false;
  $("user").replaceChildren(...list.map((u) => el("option", { value: u, text: u })));
  if (!list.length) {
    status("This key covers no user with a memory yet.");
    return;
  }
  status(`${list.length} user${list.length === 1 ? "" : "s"}.`);
  await chooseUser(list[0]);
}

function setup() {
  setupSearch();
  setupFacts();
  setupTimeline();
  setupForget();
  $("key-form").addEventListener("submit", (event) => {
    event.preventDefault();
    key.set($("api-key").value.trim());
    $("api-key").value = "";
    start();
  });
  $("sign-out").addEventListener("click", () => signedOut(""));
  $("user").addEventListener("change", (event) => chooseUser(event.target.value));
  if (key.get()) start();
  else signedOut("");
}

setup();
