// Huddle's home page: the language menu loads the page again in the language chosen.
(() => {
  "use strict";
  const menu = document.getElementById("language");
  menu.addEventListener("change", () => document.getElementById("language-form").submit());
})();
