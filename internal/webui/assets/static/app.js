// strata ui: search as you type on the memory page, find within a session.
"use strict";
(function () {
  var live = document.querySelector("input[data-live]");
  var refresh = null;
  if (live) {
    var results = document.getElementById("results");
    var timer = null, seq = 0;
    refresh = function () {
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
    };
    live.addEventListener("input", function () {
      clearTimeout(timer);
      timer = setTimeout(refresh, 150);
    });
  }

  // The dream page while its plan is being made: look again shortly.
  if (document.getElementById("planning")) setTimeout(function () { location.reload(); }, 1500);

  // Live updates: the memory list refreshes itself (the page, when nothing is typed, so the
  // inbox and the archive do too); other pages say that they are stale.
  var changed = function () { document.getElementById("changed").hidden = false; };
  if (window.EventSource) {
    var es = new EventSource("/events");
    es.addEventListener("memory", function () {
      if (live && live.value === "") location.reload();
      else if (live) refresh();
      else if (document.getElementById("text")) changed();
    });
    es.addEventListener("sessions", function () {
      var sq = document.getElementById("sq");
      if (sq && sq.value === "" && document.activeElement !== sq) location.reload();
      else if (sq || document.getElementById("find")) changed();
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
