// The language menu of the home page and the request inspector: it loads the page again in the language chosen.
(() => {
  "use strict";
  const menu = document.getElementById("language");
  const switchLanguage = () => document.getElementById("language-form").submit();
  menu.addEventListener("change", switchLanguage);
  // A language chosen before this deferred script ran (see app.js) is taken now.
  const pageOption = Array.from(menu.options).find((option) => option.defaultSelected);
  if (pageOption && menu.value !== pageOption.value) switchLanguage();
})();
