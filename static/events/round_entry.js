/* The round entry screen (templates/admin/events/event/round.html): one keystroke or one tap per result, a running
   count of boards without result, and the board problems named before saving. The server checks everything again
   (events/services_rounds.py); this only saves the arbiter a round trip.
   One keyboard model, the one the page's legend states (keys: events/admin/rounds.py RESULT_KEYS):
   - on a board's result, a result key sets that result and moves to the next board without one (its result, or its
     white player when the board is still to pair; the save button when none is left); other letters change nothing;
   - Tab / Shift+Tab move from field to field (white, black, result: the tap buttons are for fingers and are
     skipped), ↑ / ↓ move to the same field of the board above or below;
   - Enter saves the round, from any field (Ctrl+Enter too).
   A tap sets its board's result and leaves the focus where it is (a phone's keyboard does not pop up). */
(function () {
  "use strict";
  // The projected rating changes (same computation as the publication) arrive after the page is shown.
  var standings = document.getElementById("standings");
  if (standings && standings.dataset.projection && window.fetch) {
    fetch(standings.dataset.projection, {credentials: "same-origin"})
      .then(function (response) { return response.ok ? response.json() : {projection: null}; })
      .then(function (data) {
        var changes = data.projection || {};
        standings.querySelectorAll("td.proj").forEach(function (cell) {
          var change = changes[cell.dataset.p];
          cell.textContent = change === null || change === undefined ? "" : (change > 0 ? "+" : "") + change.toFixed(1);
        });
        standings.classList.add("projected");
      });
  }
})();
(function () {
  "use strict";
  var form = document.getElementById("round-form");
  var texts = document.getElementById("round-texts");
  if (!form || !texts) return;
  var roster = JSON.parse(document.getElementById("round-roster").textContent);
  var byId = {};
  Object.keys(roster).forEach(function (rank) { byId[String(roster[rank][1])] = rank; });
  var keys = JSON.parse(document.getElementById("round-keys").textContent);
  var byes = texts.dataset.byes.split(" ");
  var rows = Array.prototype.slice.call(form.querySelectorAll("tr.board"));
  var pendingOut = document.getElementById("pending-count");
  var problemsList = document.getElementById("round-problems");
  var touched = false;

  function say(name, values) {
    return texts.dataset[name].replace(/\{(\w+)\}/g, function (_, key) { return values[key]; });
  }
  function parts(row) {
    return {
      board: row.querySelector("input[name$='-meta']").value.split(";")[0],
      white: row.querySelector("input[name$='-white']"),
      black: row.querySelector("input[name$='-black']"),
      result: row.querySelector("select.result"),
    };
  }
  // A typed start rank or ID number -> start rank; a name is left to the server ("" when nothing typed).
  function rankOf(input) {
    var token = input.value.trim();
    if (!token) return "";
    if (/^\d+$/.test(token)) {
      if (roster[token]) return token;
      if (byId[token]) return byId[token];
      return null;
    }
    return "name:" + token.toLowerCase();
  }
  function describe(input) {
    var who = input.parentNode.querySelector(".who");
    var rank = rankOf(input);
    if (rank && roster[rank]) {
      var p = roster[rank];
      who.textContent = "";
      var name = document.createElement("span");
      name.className = "nm";
      name.textContent = p[0];
      who.appendChild(name);
      who.appendChild(document.createTextNode(" "));
      var small = document.createElement("small");
      small.textContent = p[1] + " · " + (p[2] || "–") + " · " + p[3];
      who.appendChild(small);
    } else {
      who.textContent = "";
    }
  }

  function validate() {
    var problems = [], seen = {}, pending = 0;
    rows.forEach(function (row) {
      var f = parts(row), white = rankOf(f.white), black = rankOf(f.black), result = f.result.value;
      var before = problems.length;
      if (white === "" && black === "") { row.classList.remove("has-problem"); return; }
      [[f.white, white], [f.black, black]].forEach(function (side) {
        if (side[1] === null) problems.push(say("unknown", {board: f.board, rank: side[0].value.trim()}));
        if (side[1]) {
          if (seen[side[1]]) {
            var label = roster[side[1]] ? roster[side[1]][0] : side[0].value;
            problems.push(say("twice", {board: f.board, player: label}));
          }
          seen[side[1]] = true;
        }
      });
      if (white === "") problems.push(say("nowhite", {board: f.board}));
      if (white && white === black) problems.push(say("self", {board: f.board}));
      if (black === "" && white !== "" && byes.indexOf(result) < 0) {
        problems.push(say("alone", {board: f.board, result: f.result.options[f.result.selectedIndex].text}));
      }
      if (black && byes.indexOf(result) >= 0) problems.push(say("byeopp", {board: f.board}));
      if (white !== "" && result === "*") pending += 1;
      row.classList.toggle("has-problem", problems.length > before);
    });
    pendingOut.textContent = String(pending);
    if (!touched) return;
    problemsList.innerHTML = "";
    problems.forEach(function (text) {
      var li = document.createElement("li");
      li.textContent = text;
      problemsList.appendChild(li);
    });
    problemsList.hidden = problems.length === 0;
  }

  function unfinished(row) {
    var f = parts(row);
    return !f.white.value.trim() || f.result.value === "*";
  }
  function focusRow(index, column) {
    if (index < 0 || index >= rows.length) return;
    var f = parts(rows[index]);
    var target = column ? f[column] : f.white.value.trim() ? f.result : f.white;
    target.focus();
    if (target.select && target.tagName === "INPUT") target.select();
    rows[index].scrollIntoView({block: "nearest"});
  }
  // The next board without a result after ``index`` (then from the top); the save button once every board has one.
  function focusNextUnfinished(index) {
    for (var step = 1; step <= rows.length; step += 1) {
      var next = (index + step) % rows.length;
      if (unfinished(rows[next])) { focusRow(next); return; }
    }
    var save = document.getElementById("save-round");
    if (save) save.focus();
  }
  function indexOf(element) {
    return rows.indexOf(element.closest("tr.board"));
  }
  // The tap buttons say which result the board has (aria-pressed: also what a screen reader announces).
  function showPressed(row) {
    var code = parts(row).result.value;
    row.querySelectorAll("button[data-r]").forEach(function (button) {
      button.setAttribute("aria-pressed", button.dataset.r === code ? "true" : "false");
    });
  }
  function setResult(row, code) {
    parts(row).result.value = code;
    touched = true;
    showPressed(row);
    validate();
  }
  function save() {
    form.requestSubmit(document.getElementById("save-round"));
  }

  form.addEventListener("keydown", function (event) {
    var target = event.target;
    var field = target.matches && (target.matches("input.rank") || target.matches("select.result"));
    if (event.key === "Enter" && field) {
      event.preventDefault();
      save();
      return;
    }
    if (!field || event.altKey || event.ctrlKey || event.metaKey) return;
    var index = indexOf(target);
    var column = target.matches("select.result") ? "result" : target.name.split("-")[1];
    if (event.key === "ArrowDown" || event.key === "ArrowUp") {
      event.preventDefault(); // on a result, the browser would change the result instead
      focusRow(index + (event.key === "ArrowDown" ? 1 : -1), column);
      return;
    }
    if (column !== "result") return;
    var code = keys[event.key] || keys[event.key.toLowerCase()];
    if (code) {
      event.preventDefault();
      setResult(rows[index], code);
      focusNextUnfinished(index);
    } else if (event.key.length === 1 && event.key !== " ") {
      event.preventDefault(); // no type-ahead: only the result keys change a result (Space opens the list)
    }
  });
  form.addEventListener("input", function (event) {
    if (event.target.matches("input.rank")) {
      touched = true;
      describe(event.target);
      validate();
    }
  });
  form.addEventListener("change", function (event) {
    if (event.target.matches("select.result")) {
      touched = true;
      showPressed(event.target.closest("tr.board"));
      validate();
    }
  });
  form.addEventListener("click", function (event) {
    var button = event.target.closest("button[data-r]");
    if (button) setResult(button.closest("tr.board"), button.dataset.r);
  });

  validate();
  // Start where the work is: the first board without a result (or the first empty board).
  for (var i = 0; i < rows.length; i += 1) {
    var f = parts(rows[i]);
    if (!f.white.value.trim() || f.result.value === "*") { focusRow(i); break; }
  }
})();
