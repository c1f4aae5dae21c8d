// The tournament page: while the tournament runs, its live part (standings, the round's pairings and their links) is
// read again every data-refresh seconds and put in place; it stops once the tournament is over. No build step.
(function () {
  "use strict";
  var page = document.getElementById("tournament");
  var live = document.getElementById("live");
  if (!page || !live) return;
  var every = Math.max(5, Number(page.dataset.refresh) || 15) * 1000;
  var shown = null;

  function running() {
    var part = live.querySelector(".tournament-live");
    return part !== null && part.dataset.running === "true";
  }

  function refresh() {
    fetch(page.dataset.live, {cache: "no-store"}).then(function (answer) {
      if (!answer.ok) throw new Error("HTTP " + answer.status);
      return answer.text();
    }).then(function (html) {
      if (html !== shown) {
        live.innerHTML = html;
        shown = html;
      }
    }).catch(function () {
      // (the next read tries again)
    }).then(function () {
      if (running()) setTimeout(refresh, every);
    });
  }

  if (running()) setTimeout(refresh, every);
})();
