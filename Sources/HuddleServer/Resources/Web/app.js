// Huddle's Notification Center page: follows the device's live stream and patches the stacks with the
// HTML the server renders, so the page and the server never disagree about what a stack says.
(() => {
  "use strict";
  const body = document.body;
  const token = body.dataset.token;
  const stacks = document.getElementById("stacks");
  const empty = document.getElementById("empty");
  const connection = document.getElementById("connection");
  const lockButton = document.getElementById("lock");
  const activity = document.getElementById("activity");
  const eventList = document.getElementById("events");
  const languageMenu = document.getElementById("language");
  const expanded = new Set();
  let languages = body.dataset.languages;
  let locked = body.dataset.locked === "true";
  let source = null;

  // Relative times are the browser's own (CLDR data, as Foundation's on the server), written in the
  // page's language: they age by the browser's clock, so the server's rendering stays a function of the
  // center and the viewer alone, and its cached stacks never go stale.
  const pageLanguage = document.documentElement.lang || "en";
  const relative = new Intl.RelativeTimeFormat(pageLanguage, { numeric: "auto", style: "short" });

  function relativeTime(date, now) {
    const seconds = Math.max(0, Math.round((now - date) / 1000));
    if (seconds < 60) return relative.format(0, "second");
    const minutes = Math.floor(seconds / 60);
    if (minutes < 60) return relative.format(-minutes, "minute");
    const hours = Math.floor(minutes / 60);
    if (hours < 24) return relative.format(-hours, "hour");
    return date.toLocaleDateString(pageLanguage, { month: "short", day: "numeric" });
  }

  // Each app's hue comes as data-hue: the page's policy allows no inline style attribute, and a property set
  // from this script is not one.
  function paintHues(root) {
    const stacks = root.matches?.(".stack[data-hue]") ? [root] : root.querySelectorAll(".stack[data-hue]");
    for (const stack of stacks) stack.style.setProperty("--app-hue", stack.dataset.hue);
  }

  function refreshTimes(root = document) {
    const now = Date.now();
    for (const time of root.querySelectorAll("time[datetime]")) {
      const date = new Date(time.getAttribute("datetime"));
      time.textContent = relativeTime(date, now);
      time.title = date.toLocaleString(pageLanguage);
    }
  }

  function findGroup(id) {
    return stacks.querySelector(`.stack[data-group="${CSS.escape(id)}"]:not(.leaving)`);
  }

  function setExpanded(stack, open) {
    stack.classList.toggle("expanded", open);
    const leading = stack.querySelector(".card.leading[role=button]");
    if (leading) leading.setAttribute("aria-expanded", String(open));
    if (open) expanded.add(stack.dataset.group); else expanded.delete(stack.dataset.group);
  }

  function updateEmpty() {
    empty.hidden = stacks.querySelector(".stack:not(.leaving)") !== null;
  }

  function removeAnimated(stack) {
    stack.classList.add("leaving");
    setTimeout(() => { stack.remove(); updateEmpty(); }, 260);
  }

  function showCenter(data) {
    stacks.innerHTML = data.html;
    for (const stack of stacks.querySelectorAll(".stack")) {
      if (expanded.has(stack.dataset.group)) setExpanded(stack, true);
    }
    paintHues(stacks);
    refreshTimes(stacks);
    updateEmpty();
  }

  function applyChange(data) {
    for (const id of data.removedGroups) {
      const stack = findGroup(id);
      if (stack) removeAnimated(stack);
      expanded.delete(id);
    }
    const delivered = new Set(data.delivered);
    // Groups come in ascending position; each goes where the server says, the others keep their order.
    for (const group of data.groups) {
      const template = document.createElement("template");
      template.innerHTML = group.html.trim();
      const stack = template.content.firstElementChild;
      const old = findGroup(group.id);
      const wasOpen = expanded.has(group.id);
      if (old) old.remove();
      if (wasOpen) setExpanded(stack, true);
      const leadingID = stack.querySelector(".card.leading")?.dataset.id;
      if (leadingID && delivered.has(leadingID)) stack.classList.add("arriving");
      const present = [...stacks.children].filter((element) => !element.classList.contains("leaving"));
      stacks.insertBefore(stack, present[group.position] ?? null);
      if (old && old.contains(document.activeElement)) keepFocus(document.activeElement, stack);
      paintHues(stack);
      refreshTimes(stack);
    }
    updateEmpty();
  }

  // What the device did with a push that showed nothing, as the server renders it at page load (page.mustache):
  // built node by node, so that the event's text (an app's payload) only ever becomes text. A stream that
  // resumes may send an event again: its change number keeps it once, in its place among the newest first.
  function element(tag, className, text) {
    const node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function showDeviceEvent(data) {
    const change = Number(data.change);
    const rows = [...eventList.children];
    if (rows.some((row) => Number(row.dataset.change) === change)) return;
    const row = element("li", "event arriving");
    row.dataset.change = String(change);
    const head = element("div", "event-head");
    const type = element("span", "push-type", data.pushType);
    type.dataset.type = data.pushType;
    const time = element("time");
    time.setAttribute("datetime", data.receivedAt);
    head.append(type, element("span", "event-app", data.app), time);
    const payload = element("details", "event-payload");
    const code = element("code", null, JSON.stringify(data.payload, null, 2));
    const pre = element("pre");
    pre.append(code);
    payload.append(element("summary", null, activity.dataset.payload), pre);
    row.append(head, element("p", "event-action", data.action), payload);
    eventList.insertBefore(row, rows.find((other) => Number(other.dataset.change) < change) ?? null);
    const limit = Number(activity.dataset.limit) || 20;
    while (eventList.children.length > limit) eventList.lastElementChild.remove();
    refreshTimes(row);
    activity.hidden = false;
  }

  // A stack re-rendered under the keyboard focus gets the focus back on the same card or button.
  function keepFocus(focused, stack) {
    const id = focused.closest(".card")?.dataset.id;
    const action = focused.dataset.action;
    const card = id ? stack.querySelector(`.card[data-id="${CSS.escape(id)}"]`) : null;
    const target = action ? (card ?? stack).querySelector(`[data-action="${action}"]`) : card;
    (target ?? stack.querySelector(".card.leading"))?.focus();
  }

  // The stream's states in the page's language, which the server wrote into the element's data.
  function setConnection(state, status) {
    const text = connection.dataset[state] ?? state;
    connection.textContent = status === undefined ? text : text.replace("%@", status);
  }

  // Opens the stream. `after` is the change the page already shows: the stream then sends only later
  // changes. Without it, the stream starts with the whole center (after a language or lock switch).
  function connect(after) {
    if (source) source.close();
    const query = new URLSearchParams({ format: "html", languages, locked: String(locked), limit: body.dataset.limit });
    if (after !== undefined) query.set("after", after);
    source = new EventSource(`/v1/devices/${token}/stream?${query}`);
    source.addEventListener("center", (event) => showCenter(JSON.parse(event.data)));
    source.addEventListener("change", (event) => applyChange(JSON.parse(event.data)));
    source.addEventListener("device-event", (event) => showDeviceEvent(JSON.parse(event.data)));
    source.addEventListener("open", () => setConnection("live"));
    source.addEventListener("error", () => setConnection(source.readyState === EventSource.CLOSED ? "offline" : "reconnecting"));
  }

  function rememberView() {
    const query = new URLSearchParams(location.search);
    query.set("languages", languages);
    if (locked) query.set("locked", "true"); else query.delete("locked");
    history.replaceState(null, "", `${location.pathname}?${query}`);
  }

  async function call(method, path, json) {
    const response = await fetch(`/v1/devices/${token}${path}`, {
      method, headers: json ? { "content-type": "application/json" } : {}, body: json ? JSON.stringify(json) : undefined,
    });
    if (!response.ok) setConnection("error", String(response.status));
  }

  stacks.addEventListener("click", (event) => {
    const stack = event.target.closest(".stack");
    if (!stack) return;
    const action = event.target.closest("[data-action]")?.dataset.action;
    if (action === "collapse") return setExpanded(stack, false);
    if (action === "clear-group") return call("DELETE", `/groups/${encodeURIComponent(stack.dataset.group)}`);
    if (action === "clear-one") {
      const card = event.target.closest(".card");
      return call("POST", "/notifications/remove", { app: stack.dataset.app, ids: [card.dataset.id] });
    }
    if (event.target.closest(".card.leading") && stack.classList.contains("stacked") && !stack.classList.contains("expanded")) {
      setExpanded(stack, true);
    }
  });
  stacks.addEventListener("keydown", (event) => {
    const leading = event.target.closest(".card.leading[role=button]");
    if (!leading || event.target !== leading || (event.key !== "Enter" && event.key !== " ")) return;
    event.preventDefault();
    const stack = leading.closest(".stack");
    setExpanded(stack, !stack.classList.contains("expanded"));
  });
  document.getElementById("clear-all").addEventListener("click", () => call("DELETE", "/notifications"));
  lockButton.addEventListener("click", () => {
    locked = !locked;
    lockButton.setAttribute("aria-pressed", String(locked));
    lockButton.textContent = locked ? lockButton.dataset.lockedText : lockButton.dataset.unlockedText;
    rememberView();
    connect();
  });
  // A new language loads the page again: its own words, times and menu are the server's to write.
  function switchLanguage() {
    languages = languageMenu.value;
    const query = new URLSearchParams(location.search);
    query.set("languages", languages);
    location.search = query.toString();
  }
  languageMenu.addEventListener("change", switchLanguage);
  // The page shows before this deferred script runs: a language chosen in between (or a menu the browser
  // restored) is taken now. The server marks the page's own language as the menu's default, so this
  // cannot repeat after the new page loads.
  const pageOption = Array.from(languageMenu.options).find((option) => option.defaultSelected);
  if (pageOption && languageMenu.value !== pageOption.value) {
    switchLanguage();
    return;
  }

  paintHues(document);
  refreshTimes();
  setInterval(refreshTimes, 30_000);
  connect(body.dataset.change);
})();
