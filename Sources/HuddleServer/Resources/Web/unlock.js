// The page that asks for a device's secret. A link such as /devices/TOKEN/session#secret=… (what `huddle
// serve --demo` prints) hands the page its secret without sending it anywhere: it is traded for a cookie,
// taken out of the address bar, and the center opens in its place.
(async () => {
  "use strict";
  const match = location.hash.match(/secret=([0-9a-fA-F]+)/);
  if (!match) return;
  history.replaceState(null, "", location.pathname + location.search);
  const form = document.getElementById("unlock");
  const token = form.dataset.token;
  const response = await fetch("/devices/" + encodeURIComponent(token) + "/session", {
    method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ secret: match[1] }),
  });
  // The page that asked (the server checked it is one of its devices' pages), not a reload: this form is also served
  // at /devices/TOKEN/session, and in place of the iPhone's page for the Android phone shown beside it.
  if (response.ok) location.replace(form.dataset.next);
})();
