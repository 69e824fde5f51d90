// The provider request inspector: fills the table from the admin API, then live from its stream; a row
// opens the request: its answer, the notification it stored, its headers and its payload. The page's words
// come from the server in the page's language (the labels in the HTML, the rest in data- attributes);
// times, durations and ages are written by the browser's Intl in that language. Text goes in through
// textContent only. The page loads this script only for a viewer signed in as the admin.
(() => {
  "use strict";
  const language = document.documentElement.lang || "en";
  const chosenLanguages = document.getElementById("inspector").dataset.languages;
  const body = document.querySelector("#requests tbody");
  const status = document.getElementById("status");
  const detail = document.getElementById("detail");
  const shown = new Map();
  const milliseconds = new Intl.NumberFormat(language, { style: "unit", unit: "millisecond", maximumFractionDigits: 1 });
  const relative = new Intl.RelativeTimeFormat(language, { numeric: "auto" });
  const byId = (id) => document.getElementById(id);
  // The record's member of each sender that has one (SenderRequestRecord.senderDetails), and the sender's name.
  const SENDER_NAMES = { webPush: "Web Push", expo: "Expo" };

  function cell(row, text, className) {
    const td = document.createElement("td");
    td.textContent = text;
    if (className) td.className = className;
    row.appendChild(td);
  }

  function duration(record) {
    return milliseconds.format(record.durationMicroseconds / 1000);
  }

  function add(record) {
    if (shown.has(record.id)) return;
    shown.set(record.id, record);
    byId("empty").hidden = true;
    const row = document.createElement("tr");
    row.id = "request-" + record.id;
    row.className = record.answer.status === 200 ? "accepted" : "refused";
    row.tabIndex = 0;
    cell(row, new Date(record.receivedAt).toLocaleTimeString(language));
    cell(row, String(record.answer.status), "status");
    cell(row, record.answer.reason || "", "reason");
    cell(row, record.topic || "");
    cell(row, (record.deviceToken || "").slice(0, 12) + "…");
    cell(row, record.answer.apnsID);
    cell(row, duration(record));
    row.addEventListener("click", () => open(record.id));
    row.addEventListener("keydown", (event) => { if (event.key === "Enter") open(record.id); });
    body.insertBefore(row, body.firstChild);
  }

  // "5 seconds ago", "3 minutes ago": the largest unit that fits.
  function ago(seconds) {
    if (seconds < 60) return relative.format(-seconds, "second");
    if (seconds < 3600) return relative.format(-Math.floor(seconds / 60), "minute");
    if (seconds < 86400) return relative.format(-Math.floor(seconds / 3600), "hour");
    return relative.format(-Math.floor(seconds / 86400), "day");
  }

  // Shows the rows of a list marked `className` when there is a value, and writes it.
  function fill(id, value, className) {
    const element = byId(id);
    element.textContent = value ?? "";
    if (className) detail.querySelectorAll("." + className).forEach((row) => { row.hidden = value == null || value === ""; });
  }

  function term(list, name, value) {
    const dt = document.createElement("dt");
    const code = document.createElement("code");
    code.textContent = name;
    dt.appendChild(code);
    const dd = document.createElement("dd");
    const valueCode = document.createElement("code");
    valueCode.textContent = value;
    dd.appendChild(valueCode);
    dt.className = dd.className = "header";
    list.append(dt, dd);
  }

  async function open(id) {
    const response = await fetch("/v1/admin/requests/" + id, { credentials: "same-origin" });
    const record = response.ok ? await response.json() : shown.get(id);
    if (!record) return;
    detail.hidden = false;
    byId("detail-title").textContent = detail.dataset.title.replace("%@", String(record.id));
    byId("detail-line").textContent = record.method + " " + record.path;

    const answer = record.answer;
    byId("detail-status").textContent = String(answer.status);
    byId("detail-status").className = answer.status === 200 ? "accepted" : "refused";
    fill("detail-reason", answer.reason, "when-refused");
    fill("detail-description", answer.description, "when-described");
    fill("detail-apns-id", answer.apnsID);
    fill("detail-duration", duration(record));

    const notification = record.notification;
    byId("detail-notification").hidden = !notification;
    if (notification) {
      fill("detail-app", notification.app);
      fill("detail-identifier", notification.identifier);
      fill("detail-group", notification.group, "when-grouped");
      // Held for a summary, it is in no group yet, and not gone: what the device did says so.
      fill("detail-arrival", notification.arrival, "when-arrival");
      byId("detail-gone").hidden = Boolean(notification.group) || Boolean(notification.arrival);
      const center = byId("detail-center");
      center.href = "/devices/" + encodeURIComponent(record.deviceToken || "")
        + (chosenLanguages ? "?languages=" + encodeURIComponent(chosenLanguages) : "");
    }

    const headers = byId("detail-headers");
    headers.querySelectorAll(".header").forEach((element) => element.remove());
    byId("detail-received").textContent = new Date(record.receivedAt).toLocaleString(language, { dateStyle: "medium", timeStyle: "medium" });
    const connection = record.connection;
    // A provider certificate's subject ("Apple Push Services: com.example.app") says what authenticated the
    // connection in any language.
    byId("detail-connection").textContent = [connection.httpVersion, connection.tls ? "TLS" : null, record.certificate?.subject, connection.client]
      .filter(Boolean).join(" · ");
    byId("detail-device").textContent = record.deviceToken || "";
    for (const [name, value] of Object.entries(record.headers || {})) term(headers, name, value);

    const token = record.providerToken;
    byId("detail-token").hidden = !token;
    if (token) {
      fill("detail-key-id", token.keyID);
      fill("detail-team-id", token.teamID);
      fill("detail-issued", token.ageSeconds == null ? null : ago(token.ageSeconds), "when-dated");
    }

    // The payload as JSON, indented; a body that is not JSON as it came.
    byId("detail-payload").textContent = "payload" in record ? JSON.stringify(record.payload, null, 2) : (record.payloadText ?? "");
    // What only the request's sender has (a web push's decryption, an Expo message's ticket, receipt and what was sent
    // for it), under the sender's own name, which no language translates.
    const sender = Object.keys(SENDER_NAMES).find((member) => member in record);
    byId("detail-sender").hidden = !sender;
    if (sender) {
      byId("detail-sender-name").textContent = SENDER_NAMES[sender];
      byId("detail-sender-details").textContent = JSON.stringify(record[sender], null, 2);
    }
    detail.scrollIntoView({ block: "nearest" });
  }

  async function start() {
    const response = await fetch("/v1/admin/requests?limit=200", { credentials: "same-origin" });
    if (response.status === 401) {
      // The session ended since the page was made: the page, made again, asks for the admin token.
      location.reload();
      return;
    }
    if (!response.ok) {
      status.textContent = status.dataset.error.replace("%@", String(response.status));
      return;
    }
    const list = await response.json();
    list.requests.slice().reverse().forEach(add);
    const stream = new EventSource("/v1/admin/requests/stream?after=" + list.last);
    stream.addEventListener("open", () => { status.textContent = status.dataset.live; });
    stream.addEventListener("error", () => { status.textContent = status.dataset.reconnecting; });
    stream.addEventListener("request", (event) => add(JSON.parse(event.data)));
  }
  start();
})();
