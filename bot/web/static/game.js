// The game page: live updates (Server-Sent Events) and the replay (slider, buttons, arrow keys, ?ply=N). No build
// step. Whatever board is shown, the headline says whose turn it is there (the frame's data-status) and, away from
// the last move, "Back to live" (or "Back to the end") returns to it; the move list scrolls itself, never the page,
// to keep the shown move in sight.
(function () {
  "use strict";
  var game = document.getElementById("game");
  if (!game) return;
  var board = document.getElementById("board");
  var caption = document.getElementById("caption");
  var slider = document.getElementById("slider");
  var output = document.getElementById("slider-value");
  var replay = document.getElementById("replay");
  var live = document.getElementById("live");
  var headline = document.getElementById("headline-status");
  var back = document.getElementById("back");
  var following = Number(game.dataset.ply) === Number(slider.max);
  var prefetched = {};

  function frames() { return live.querySelectorAll("#moves li"); }
  function finished() { return game.dataset.finished === "true"; }

  function prefetch(ply) {
    var item = frames()[ply];
    if (!item || prefetched[item.dataset.src]) return;
    prefetched[item.dataset.src] = new Image();
    prefetched[item.dataset.src].src = item.dataset.src;
  }

  function reveal(item) {
    // scroll the move list (not the page) so that the shown move is in sight
    var box = document.getElementById("moves");
    if (!box || box.scrollHeight <= box.clientHeight) return;
    var outer = box.getBoundingClientRect(), inner = item.getBoundingClientRect();
    if (inner.top < outer.top) box.scrollTop += inner.top - outer.top - 4;
    else if (inner.bottom > outer.bottom) box.scrollTop += inner.bottom - outer.bottom + 4;
  }

  function show(ply, push) {
    var items = frames();
    ply = Math.max(0, Math.min(items.length - 1, ply));
    var item = items[ply];
    if (!item) return;
    board.src = item.dataset.src;
    board.alt = item.dataset.alt;
    var label = item.querySelector("a");
    caption.textContent = ply > 0 ? game.dataset.moveLabel.replace("#", String(ply)) + ": " + label.textContent
                                  : game.dataset.startLabel;
    slider.value = String(ply);
    output.textContent = String(ply);
    game.dataset.ply = String(ply);
    for (var i = 0; i < items.length; i++) items[i].classList.toggle("current", i === ply);
    following = ply === items.length - 1;
    headline.textContent = item.dataset.status || "";
    var badge = document.querySelector("#headline .live-badge");
    if (badge) badge.hidden = !following || finished();
    back.hidden = following;
    back.textContent = finished() ? back.dataset.endLabel : back.dataset.liveLabel;
    reveal(item);
    if (push) history.replaceState(null, "", following && !finished() ? location.pathname : "?ply=" + ply);
    prefetch(ply - 1);
    prefetch(ply + 1);
  }

  slider.addEventListener("input", function () { show(Number(slider.value), true); });
  document.getElementById("prev").addEventListener("click", function () { show(Number(slider.value) - 1, true); });
  document.getElementById("next").addEventListener("click", function () { show(Number(slider.value) + 1, true); });
  back.addEventListener("click", function (event) {
    event.preventDefault();
    show(frames().length - 1, true);
  });
  document.addEventListener("keydown", function (event) {
    if (event.target && event.target.tagName === "INPUT" && event.target !== slider) return;
    if (event.altKey || event.ctrlKey || event.metaKey) return;
    if (event.key === "ArrowLeft") { show(Number(slider.value) - 1, true); event.preventDefault(); }
    if (event.key === "ArrowRight") { show(Number(slider.value) + 1, true); event.preventDefault(); }
    if (event.key === "Home") { show(0, true); event.preventDefault(); }
    if (event.key === "End") { show(frames().length - 1, true); event.preventDefault(); }
  });
  live.addEventListener("click", function (event) {
    var link = event.target.closest ? event.target.closest("#moves a") : null;
    if (!link) return;
    event.preventDefault();
    show(Number(link.parentNode.dataset.ply), true);
  });

  function tick() {
    // the turn's deadline as a moment in the reader's own clock and the page's language ("(until 14:05)")
    var until = live.querySelector(".clock .until");
    if (!until || until.textContent) return;
    var at = new Date(Number(until.dataset.at) * 1000);
    try {
      until.textContent = "(→ " + new Intl.DateTimeFormat(document.documentElement.lang || undefined,
        {weekday: "short", hour: "2-digit", minute: "2-digit"}).format(at) + ")";
    } catch (error) {
      until.textContent = "(→ " + at.toLocaleString() + ")";
    }
    until.setAttribute("title", at.toString());
  }
  setInterval(tick, 1000);
  tick();

  function refresh(after) {
    // the whole list, when an event doesn't complete it (a version missed, a takeback)
    fetch(game.dataset.live, {cache: "no-store"}).then(function (answer) {
      if (answer.ok) return answer.text();
      throw new Error(String(answer.status));
    }).then(function (html) { live.innerHTML = html; after(); }, function () { after(); });
  }

  function update(state) {
    var head = document.getElementById("live-head");
    var moves = document.getElementById("moves");
    head.innerHTML = state.head;
    tick();
    game.dataset.version = String(state.version);
    if (state.finished) game.dataset.finished = "true";
    var items = frames(), last = items[items.length - 1];
    function after() {
      var count = frames().length - 1;
      slider.max = String(count);
      replay.hidden = count < 1;
      show(following ? count : Math.min(Number(slider.value), count), false);
    }
    if (items.length === state.ply + 1 && last && last.dataset.src === state.src) return after();
    if (items.length === state.ply && state.ply > 0) {  // the one new move: appended
      var holder = document.createElement("ol");
      holder.innerHTML = state.move;
      moves.appendChild(holder.firstElementChild);
      return after();
    }
    refresh(after);
  }

  show(Number(game.dataset.ply), false);
  if (finished() || !window.EventSource) return;

  // the badge says "Live" while the stream is open and "Reconnecting…" while it is broken (the browser retries a
  // dropped stream itself; one refused outright, e.g. by a proxy's 502, is opened again here)
  function badge(connected) {
    var element = document.querySelector("#headline .live-badge");
    if (!element || finished()) return;
    element.textContent = connected ? game.dataset.liveText : game.dataset.reconnectingText;
    element.classList.toggle("reconnecting", !connected);
  }

  var source = null;
  function connect() {
    source = new EventSource(game.dataset.events + "?since=" + encodeURIComponent(game.dataset.version));
    source.addEventListener("open", function () { badge(true); });
    source.addEventListener("error", function () {
      badge(false);
      if (source.readyState === EventSource.CLOSED && !finished()) setTimeout(connect, 5000);
    });
    source.addEventListener("state", function (event) { badge(true); update(JSON.parse(event.data)); });
    source.addEventListener("end", function () { source.close(); });
    source.addEventListener("gone", function () { source.close(); location.reload(); });
  }
  connect();
}());
