// The provider request inspector: fills the table from the admin API, then live from its stream; a row
// opens the request, its answer and the center it changed. Text goes in through textContent only.
(() => {
  "use strict";
  const body = document.querySelector("#requests tbody");
  const status = document.getElementById("status");
  const shown = new Map();

  function cell(row, text, className) {
    const td = document.createElement("td");
    td.textContent = text;
    if (className) td.className = className;
    row.appendChild(td);
  }

  function add(record) {
    if (shown.has(record.id)) return;
    shown.set(record.id, record);
    document.getElementById("empty").hidden = true;
    const row = document.createElement("tr");
    row.id = "request-" + record.id;
    row.className = record.answer.status === 200 ? "accepted" : "refused";
    row.tabIndex = 0;
    cell(row, new Date(record.receivedAt).toLocaleTimeString());
    cell(row, String(record.answer.status), "status");
    cell(row, record.answer.reason || "", "reason");
    cell(row, record.topic || "");
    cell(row, (record.deviceToken || "").slice(0, 12) + "…");
    cell(row, record.answer.apnsID);
    cell(row, (record.durationMicroseconds / 1000).toFixed(1) + " ms");
    row.addEventListener("click", () => open(record.id));
    row.addEventListener("keydown", (event) => { if (event.key === "Enter") open(record.id); });
    body.insertBefore(row, body.firstChild);
  }

  async function open(id) {
    const response = await fetch("/v1/admin/requests/" + id, { credentials: "same-origin" });
    const record = response.ok ? await response.json() : shown.get(id);
    const detail = document.getElementById("detail");
    detail.hidden = false;
    document.getElementById("detail-title").textContent =
      "Request " + record.id + " · " + record.answer.status + (record.answer.reason ? " " + record.answer.reason : "");
    const center = document.getElementById("detail-center");
    center.textContent = "";
    if (record.notification && record.deviceToken) {
      const link = document.createElement("a");
      link.href = "/devices/" + encodeURIComponent(record.deviceToken);
      link.textContent = "Open the center it changed" + (record.notification.group ? " (group " + record.notification.group + ")" : "");
      center.appendChild(link);
    }
    document.getElementById("detail-json").textContent = JSON.stringify(record, null, 2);
    detail.scrollIntoView({ block: "nearest" });
  }

  async function start() {
    const response = await fetch("/v1/admin/requests?limit=200", { credentials: "same-origin" });
    if (response.status === 401) {
      document.getElementById("signed-out").hidden = false;
      document.getElementById("requests-panel").hidden = true;
      status.textContent = "Signed out";
      return;
    }
    const list = await response.json();
    list.requests.slice().reverse().forEach(add);
    const stream = new EventSource("/v1/admin/requests/stream?after=" + list.last);
    stream.addEventListener("open", () => { status.textContent = "Live"; });
    stream.addEventListener("error", () => { status.textContent = "Reconnecting…"; });
    stream.addEventListener("request", (event) => add(JSON.parse(event.data)));
  }
  start();
})();
