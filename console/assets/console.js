// mnemo console: small conveniences on top of plain forms and links.
// Every page works without this script.
(function () {
  "use strict";
  document.documentElement.classList.add("js");
  document.addEventListener("DOMContentLoaded", function () {
    // The namespace picker switches on change.
    document.querySelectorAll("select[data-autosubmit]").forEach(function (s) {
      s.addEventListener("change", function () { s.form.submit(); });
    });
    // "Select all" for bulk actions.
    document.querySelectorAll("input[data-select-all]").forEach(function (all) {
      all.addEventListener("change", function () {
        all.form.querySelectorAll("input[name=id]").forEach(function (c) { c.checked = all.checked; });
      });
    });
    // Forms that ask before they act.
    document.querySelectorAll("form[data-confirm]").forEach(function (f) {
      f.addEventListener("submit", function (e) {
        if (!window.confirm(f.getAttribute("data-confirm"))) { e.preventDefault(); }
      });
    });
    document.querySelectorAll("[data-print]").forEach(function (b) {
      b.addEventListener("click", function () { window.print(); });
    });
  });
  // "/" focuses the search box, or goes to the search page.
  document.addEventListener("keydown", function (e) {
    var t = e.target.tagName;
    if (e.key !== "/" || t === "INPUT" || t === "TEXTAREA" || t === "SELECT" || e.ctrlKey || e.metaKey || e.altKey) { return; }
    var q = document.getElementById("q");
    e.preventDefault();
    if (q) { q.focus(); } else { window.location.href = "/search"; }
  });
})();
