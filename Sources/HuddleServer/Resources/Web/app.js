// Huddle's Notification Center page: follows the device's live stream and patches the stacks with the
// HTML the server renders, so the page and the server never disagree about what a stack says. An Android
// phone's page has its shade in place of the stacks: its stream carries the whole shade, rendered by the server
// for the page's language and lock, on every change, and the page puts it in place. An iPhone's page may show an
// Android phone beside it (?beside={token}), whose shade follows that phone's own stream the same way.
(() => {
  "use strict";
  const body = document.body;
  const token = body.dataset.token;
  const stacks = document.getElementById("stacks");
  const deviceAttention = document.getElementById("device-attention");
  const empty = document.getElementById("empty");
  const connection = document.getElementById("connection");
  const lockButton = document.getElementById("lock");
  const activity = document.getElementById("activity");
  const eventList = document.getElementById("events");
  const liveActivities = document.getElementById("live-activities");
  const activityCards = document.getElementById("activity-cards");
  const banner = document.getElementById("activity-banner");
  const languageMenu = document.getElementById("language");
  // The Android phone's shade; null on an iPhone's page, which has the stacks, Live Activities and banner instead.
  const shade = document.getElementById("shade");
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

  // A date a Live Activity shows (data-style): its time of day, its day, or how long until or since it.
  function activityTime(date, style, now) {
    if (style === "time") return date.toLocaleTimeString(pageLanguage, { hour: "numeric", minute: "2-digit" });
    if (style === "date") return date.toLocaleDateString(pageLanguage, { month: "short", day: "numeric" });
    const minutes = Math.round((date - now) / 60_000);
    if (Math.abs(minutes) < 60) return relative.format(minutes, "minute");
    const hours = Math.round(minutes / 60);
    if (Math.abs(hours) < 24) return relative.format(hours, "hour");
    return relative.format(Math.round(hours / 24), "day");
  }

  // Each app's hue comes as data-hue: the page's policy allows no inline style attribute, and a property set
  // from this script is not one.
  function paintHues(root) {
    const selector = ".stack[data-hue], .activity-card[data-hue], .featured-item[data-hue], .summary-app[data-hue], .shade [data-hue]";
    const painted = root.matches?.(selector) ? [root] : root.querySelectorAll(selector);
    for (const element of painted) element.style.setProperty("--app-hue", element.dataset.hue);
  }

  function refreshTimes(root = document) {
    const now = Date.now();
    for (const time of root.querySelectorAll("time[datetime]:not([data-fixed])")) {
      const date = new Date(time.getAttribute("datetime"));
      const style = time.dataset.style;
      time.textContent = style ? activityTime(date, style, now) : relativeTime(date, now);
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
    // The person's settings: the Focus, the summary, what waits for it, and the Lock Screen's layout.
    deviceAttention.innerHTML = data.device ?? "";
    body.dataset.layout = data.layout ?? "";
    paintHues(deviceAttention);
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
      // A passive notification arrives quietly, as on iOS: it is added to the list without lighting the screen.
      const leading = stack.querySelector(".card.leading");
      if (leading && delivered.has(leading.dataset.id) && leading.dataset.level !== "passive") stack.classList.add("arriving");
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
    if (rows.some((row) => Number(row.dataset.change) === change)) return false;
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
    return true;
  }

  // The Live Activities as the Lock Screen shows them, from the stream's `activities` event (its `lockScreen`
  // cards, in the Lock Screen's order): each card is built node by node, every text of the activity's
  // template or content state set as text, never as markup. A card already shown is kept and refilled in
  // place, so that an update changes the card rather than replacing it.
  function fillActivity(card, data) {
    card.dataset.id = data.id;
    card.dataset.app = data.app;
    card.dataset.hue = String(data.hue);
    card.dataset.state = data.state;
    card.dataset.staleDate = data.staleDate ?? "";
    card.dataset.dismissalDate = data.dismissalDate ?? "";
    const head = element("div", "activity-head");
    const badge = element("span", "badge", initials(data.appName));
    badge.setAttribute("aria-hidden", "true");
    head.append(badge, element("span", "activity-app", data.appName), element("span", "activity-state"));
    const lines = element("div", "activity-lines");
    for (const line of data.lines) {
      const paragraph = element("p", "activity-line");
      if (line.label !== undefined) paragraph.append(element("span", "activity-label", line.label), " ");
      const value = element("span", "activity-value");
      for (const piece of line.pieces) {
        if (piece.date === undefined) {
          value.append(document.createTextNode(piece.text));
        } else {
          const time = element("time");
          time.setAttribute("datetime", piece.date);
          time.dataset.style = piece.style;
          value.append(time);
        }
      }
      paragraph.append(value);
      lines.append(paragraph);
    }
    card.replaceChildren(head, lines);
    paintHues(card);
    refreshTimes(card);
  }

  // The badge's letters, as the server writes them (WebPages.initials).
  function initials(name) {
    const words = name.split(/[^\p{L}\p{N}]+/u).filter(Boolean);
    if (words.length >= 2) return (Array.from(words[0])[0] + Array.from(words[1])[0]).toUpperCase();
    if (words.length === 0) return "?";
    const letters = Array.from(words[0]);
    return letters[0].toUpperCase() + (letters[1] ?? "").toLowerCase();
  }

  function showActivities(data) {
    const shown = new Map([...activityCards.children].map((card) => [card.dataset.id, card]));
    const cards = data.lockScreen.map((item) => {
      const card = shown.get(item.id) ?? element("li", "activity-card");
      shown.delete(item.id);
      fillActivity(card, item);
      return card;
    });
    for (const gone of shown.values()) gone.remove();
    // In the Lock Screen's order; a card already in its place stays put.
    cards.forEach((card, index) => {
      if (activityCards.children[index] !== card) activityCards.insertBefore(card, activityCards.children[index] ?? null);
    });
    refreshActivities();
  }

  // What time does to the cards between two events: past its stale date a card is not updated, past its
  // dismissal date an ended card leaves (the server's rules, docs/push-types.md §2).
  function refreshActivities() {
    if (!activityCards) return;
    const now = Date.now();
    for (const card of [...activityCards.children]) {
      const staleDate = card.dataset.staleDate ? Date.parse(card.dataset.staleDate) : NaN;
      const dismissalDate = card.dataset.dismissalDate ? Date.parse(card.dataset.dismissalDate) : NaN;
      if (card.dataset.state === "active" && staleDate <= now) card.dataset.state = "stale";
      if ((card.dataset.state === "ended" || card.dataset.state === "dismissed") && dismissalDate <= now) {
        card.remove();
        continue;
      }
      const state = card.querySelector(".activity-state");
      const words = { stale: liveActivities.dataset.notUpdated, ended: liveActivities.dataset.ended, dismissed: liveActivities.dataset.ended };
      if (state) state.textContent = words[card.dataset.state] ?? "";
    }
    liveActivities.hidden = activityCards.children.length === 0;
  }

  // An activity's alert lights the screen and is never a notification: a banner that passes.
  let bannerTimer = null;
  function showBanner(data) {
    const card = activityCards.querySelector(`.activity-card[data-id][data-app="${CSS.escape(data.app)}"]`);
    const name = card?.querySelector(".activity-app")?.textContent ?? data.app;
    const head = element("div", "activity-head");
    const badge = element("span", "badge", initials(name));
    badge.setAttribute("aria-hidden", "true");
    head.append(badge, element("span", "activity-app", name));
    banner.replaceChildren(head);
    if (data.alert.title) banner.append(element("p", "title", data.alert.title));
    if (data.alert.body) banner.append(element("p", "body", data.alert.body));
    banner.dataset.hue = String(card?.dataset.hue ?? 0);
    banner.style.setProperty("--app-hue", banner.dataset.hue);
    banner.hidden = false;
    banner.classList.remove("arriving");
    void banner.offsetWidth;
    banner.classList.add("arriving");
    clearTimeout(bannerTimer);
    bannerTimer = setTimeout(() => { banner.hidden = true; }, 8000);
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
  function showConnection(element, state, status) {
    const text = element.dataset[state] ?? state;
    element.textContent = status === undefined ? text : text.replace("%@", status);
  }

  function setConnection(state, status) {
    showConnection(connection, state, status);
  }

  // Opens the stream. `after` is the change the page already shows: the stream then sends only later
  // changes. Without it, the stream starts with the whole center (after a language or lock switch).
  function connect(after) {
    if (source) source.close();
    if (ownShade) {
      source = shadeStream(token, after, ownShade);
    } else {
      const query = new URLSearchParams({ format: "html", languages, locked: String(locked), limit: body.dataset.limit });
      if (after !== undefined) query.set("after", after);
      source = new EventSource(`/v1/devices/${token}/stream?${query}`);
      source.addEventListener("center", (event) => showCenter(JSON.parse(event.data)));
      source.addEventListener("change", (event) => applyChange(JSON.parse(event.data)));
    }
    source.addEventListener("device-event", (event) => {
      const data = JSON.parse(event.data);
      // An event sent again to a resuming stream is shown once, and lights the screen once.
      if (showDeviceEvent(data) && data.alert && banner) showBanner(data);
    });
    if (activityCards) source.addEventListener("activities", (event) => showActivities(JSON.parse(event.data)));
    source.addEventListener("open", () => setConnection("live"));
    source.addEventListener("error", () => setConnection(source.readyState === EventSource.CLOSED ? "offline" : "reconnecting"));
  }

  // An Android phone's shade, drawn by the server: its stream's `center` events carry the shade as the page's view
  // (language and lock) shows it, whole, and `show` puts it in place; nothing is fetched per change.
  function followShade(container) {
    // The groups the person expanded (by app) stay expanded in every later shade, as on the phone.
    const expandedGroups = new Set();

    function setGroupExpanded(group, open) {
      group.classList.toggle("expanded", open);
      const button = group.querySelector(".shade-expand");
      button.setAttribute("aria-expanded", String(open));
      button.setAttribute("aria-label", open ? button.dataset.collapse : button.dataset.expand);
      group.querySelector(".shade-children").hidden = !open;
      if (open) expandedGroups.add(group.dataset.group); else expandedGroups.delete(group.dataset.group);
    }

    // The server's rendering of the shade (its texts escaped there), in place of the one shown; cards new to it slide
    // in, as a notification posted while the shade is open does.
    function show(html) {
      const shown = new Set([...container.querySelectorAll(".shade-card")].map((card) => card.dataset.id));
      const template = document.createElement("template");
      template.innerHTML = html.trim();
      const next = template.content.firstElementChild;
      if (!next) return;
      for (const group of next.querySelectorAll(".shade-group")) {
        if (expandedGroups.has(group.dataset.group)) setGroupExpanded(group, true);
      }
      for (const entry of next.querySelectorAll(".shade-entries > .shade-entry")) {
        const ids = [...entry.querySelectorAll(".shade-card")].map((card) => card.dataset.id);
        if (ids.some((id) => !shown.has(id))) entry.classList.add("arriving");
      }
      container.replaceChildren(next);
      paintHues(container);
      refreshTimes(container);
      tickClock();
    }

    container.addEventListener("click", (event) => {
      const button = event.target.closest(".shade-expand");
      if (!button) return;
      const group = button.closest(".shade-group");
      setGroupExpanded(group, !group.classList.contains("expanded"));
    });
    return { show };
  }

  // A phone's shade stream, in the page's language and lock: each `center` event is the whole shade, rendered.
  function shadeStream(shadeToken, after, shadeShown) {
    const query = new URLSearchParams({ format: "html", languages, locked: String(locked) });
    if (after !== undefined) query.set("after", after);
    const stream = new EventSource(`/v1/devices/${shadeToken}/stream?${query}`);
    stream.addEventListener("center", (event) => shadeShown.show(JSON.parse(event.data).html));
    return stream;
  }

  const ownShade = shade ? followShade(shade) : null;

  // The Android phone an iPhone's page shows beside it (?beside=): its shade follows its own stream, in the iPhone's
  // language and lock.
  const beside = document.getElementById("beside");
  const besideConnection = document.getElementById("beside-connection");
  const reportBeside = (state, status) => showConnection(besideConnection, state, status);
  const besideShade = beside ? followShade(document.getElementById("beside-shade")) : null;
  let besideSource = null;

  // Opened with the page, and again when its lock switches (a new language loads the page): the stream then starts with
  // the shade as the new lock shows it.
  function connectBeside(after) {
    if (besideSource) besideSource.close();
    const stream = shadeStream(beside.dataset.token, after, besideShade);
    besideSource = stream;
    stream.addEventListener("open", () => reportBeside("live"));
    stream.addEventListener("error", () => reportBeside(stream.readyState === EventSource.CLOSED ? "offline" : "reconnecting"));
  }

  // The status bar's clock (and a locked phone's), in the browser's time and the page's language, without its
  // AM or PM, as a phone's narrow clock goes without.
  const clockFormat = new Intl.DateTimeFormat(pageLanguage, { hour: "numeric", minute: "2-digit" });
  function tickClock() {
    const text = clockFormat.formatToParts(new Date()).filter((part) => part.type !== "dayPeriod").map((part) => part.value).join("").trim();
    for (const clock of document.querySelectorAll("[data-clock]")) clock.textContent = text;
  }

  function rememberView() {
    const query = new URLSearchParams(location.search);
    query.set("languages", languages);
    if (locked) query.set("locked", "true"); else query.delete("locked");
    history.replaceState(null, "", `${location.pathname}?${query}`);
  }

  // A change to a phone through the device API, signed in by the phone's cookie: the page's own, or (`to`) the one
  // beside it, whose connection state reports the failure.
  async function call(method, path, json, to = { token, report: setConnection }) {
    const response = await fetch(`/v1/devices/${to.token}${path}`, {
      method, headers: json ? { "content-type": "application/json" } : {}, body: json ? JSON.stringify(json) : undefined,
    });
    if (!response.ok) to.report("error", String(response.status));
  }

  stacks?.addEventListener("click", (event) => {
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
  stacks?.addEventListener("keydown", (event) => {
    const leading = event.target.closest(".card.leading[role=button]");
    if (!leading || event.target !== leading || (event.key !== "Enter" && event.key !== " ")) return;
    event.preventDefault();
    const stack = leading.closest(".stack");
    setExpanded(stack, !stack.classList.contains("expanded"));
  });
  // Clear All clears every phone the page shows.
  document.getElementById("clear-all").addEventListener("click", () => {
    call("DELETE", "/notifications");
    if (beside) call("DELETE", "/notifications", undefined, { token: beside.dataset.token, report: reportBeside });
  });
  lockButton.addEventListener("click", () => {
    locked = !locked;
    // The Lock Screen's layout applies to a locked page only (app.css reads this).
    body.dataset.locked = String(locked);
    lockButton.setAttribute("aria-pressed", String(locked));
    lockButton.textContent = locked ? lockButton.dataset.lockedText : lockButton.dataset.unlockedText;
    rememberView();
    connect();
    if (beside) connectBeside();
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

  banner?.addEventListener("click", () => { banner.hidden = true; });
  paintHues(document);
  refreshTimes();
  refreshActivities();
  tickClock();
  setInterval(() => { refreshTimes(); refreshActivities(); tickClock(); }, 30_000);
  connect(body.dataset.change);
  if (beside) connectBeside(beside.dataset.change);
})();
