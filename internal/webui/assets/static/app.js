// strata ui: search as you type on the memory page, find within a session.
"use strict";
(function () {
  var live = document.querySelector("input[data-live]");
  if (live) {
    var results = document.getElementById("results");
    var timer = null, seq = 0;
    live.addEventListener("input", function () {
      clearTimeout(timer);
      timer = setTimeout(function () {
        var n = ++seq;
        var q = live.value;
        fetch(live.dataset.live + "?q=" + encodeURIComponent(q), {credentials: "same-origin"})
          .then(function (r) { return r.ok ? r.text() : Promise.reject(r.status); })
          .then(function (html) {
            if (n !== seq) return; // a newer search is on its way
            results.innerHTML = html;
            history.replaceState(null, "", q ? "/?q=" + encodeURIComponent(q) : "/");
          })
          .catch(function (e) { results.textContent = "search failed: " + e; });
      }, 150);
    });
  }
  var find = document.getElementById("find");
  if (find) {
    var apply = function () {
      var q = find.value.trim().toLowerCase();
      document.querySelectorAll(".conv .turn").forEach(function (t) {
        var hit = q === "" || t.textContent.toLowerCase().indexOf(q) >= 0;
        t.classList.toggle("hidden", !hit);
        t.classList.toggle("match", q !== "" && hit);
        if (q !== "" && hit) t.querySelectorAll("details").forEach(function (d) {
          if (d.textContent.toLowerCase().indexOf(q) >= 0) d.open = true;
        });
      });
    };
    find.addEventListener("input", apply);
    document.getElementById("findform").addEventListener("submit", function (e) { e.preventDefault(); });
    apply();
    if (location.hash) {
      var el = document.getElementById(location.hash.slice(1));
      if (el) el.scrollIntoView();
    }
  }
})();
