// The web apps page: subscribes, unsubscribes and takes a browser offline through the device API (signed in by the
// page's cookie), then shows the page again.
"use strict";

const token = document.body.dataset.token;
const api = `/v1/devices/${encodeURIComponent(token)}/web-push/subscriptions`;

async function send(method, url, body) {
  const response = await fetch(url, {
    method, credentials: "same-origin",
    headers: body === undefined ? {} : { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!response.ok) {
    const text = await response.text();
    let message = text;
    try { message = JSON.parse(text).reason || JSON.parse(text).error || text; } catch (_) { /* not JSON */ }
    throw new Error(`${response.status}: ${message}`);
  }
  return response;
}

document.getElementById("subscribe").addEventListener("submit", async (event) => {
  event.preventDefault();
  const error = document.getElementById("subscribe-error");
  error.hidden = true;
  const form = event.target;
  const body = {
    origin: form.origin.value.trim(), applicationServerKey: form.applicationServerKey.value.trim(), service: form.service.value,
    serviceWorkerShowsNotifications: document.getElementById("shows").checked,
  };
  if (form.name.value.trim()) body.name = form.name.value.trim();
  try {
    await send("POST", api, body);
    window.location.reload();
  } catch (failure) {
    error.textContent = failure.message;
    error.hidden = false;
  }
});

// A button's request, then the page again; a refusal is shown under the subscription, not lost.
function act(article, button, method, body) {
  button.addEventListener("click", async () => {
    try {
      await send(method, article.dataset.location, body && body());
      window.location.reload();
    } catch (failure) {
      const error = article.querySelector(".error");
      error.textContent = failure.message;
      error.hidden = false;
    }
  });
}

for (const article of document.querySelectorAll(".subscription")) {
  const unsubscribe = article.querySelector(".unsubscribe");
  if (unsubscribe) act(article, unsubscribe, "DELETE");
  const toggle = article.querySelector(".toggle-online");
  if (toggle) act(article, toggle, "PATCH", () => ({ online: toggle.dataset.online === "true" }));
}
