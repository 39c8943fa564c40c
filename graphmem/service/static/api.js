// The /v1 JSON API with the key kept in this tab's sessionStorage.

const KEY = "graphmem.apiKey";

export const key = {
  get: () => sessionStorage.getItem(KEY),
  set: (value) => sessionStorage.setItem(KEY, value),
  clear: () => sessionStorage.removeItem(KEY),
};

export class ApiError extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

function messageOf(data, fallback) {
  if (!data) return fallback;
  const detail = data.detail ?? data.error ?? data.message;
  if (typeof detail === "string") return detail;
  if (detail && typeof detail.message === "string") return detail.message;
  if (Array.isArray(detail)) return detail.map((d) => d.msg ?? JSON.stringify(d)).join("; ");
  return fallback;
}

/** Call the API (`path` from /v1, under the page's root path); resolves to the parsed JSON,
 *  rejects with an ApiError. */
export async function api(method, path, body) {
  const init = { method, headers: { Authorization: `Bearer ${key.get() ?? ""}` } };
  if (body !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  const response = await fetch(`${document.body.dataset.root ?? ""}${path}`, init);
  const text = await response.text();
  let data = null;
  try {
    data = text ? JSON.parse(text) : null;
  } catch {
    data = null;
  }
  if (!response.ok) throw new ApiError(response.status, messageOf(data, `${response.status} ${response.statusText}`));
  return data;
}

/** /v1/users/{user}/{rest}?query, every part encoded. */
export function userPath(user, rest, params = {}) {
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) {
    for (const v of [].concat(value)) if (v !== undefined && v !== null && v !== "") query.append(name, v);
  }
  const qs = query.toString();
  return `/v1/users/${encodeURIComponent(user)}/${rest}${qs ? `?${qs}` : ""}`;
}
