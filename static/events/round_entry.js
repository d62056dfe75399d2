/* The round entry screen (templates/admin/events/event/round.html): one keystroke per result, arrow keys
   down the boards, a running count of boards without result, and the board problems named before saving.
   The server checks everything again (events/services_rounds.py); this only saves the arbiter a round trip. */
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
  var keys = {};
  texts.dataset.keys.split(" ").forEach(function (pair) {
    var at = pair.indexOf("=");
    keys[pair.slice(0, at)] = pair.slice(at + 1);
  });
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
      who.textContent = p[0] + " ";
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

  function focusRow(index, column) {
    if (index < 0 || index >= rows.length) return;
    var f = parts(rows[index]);
    var target = column === "white" || column === "black" ? f[column] : f.white.value.trim() ? f.result : f.white;
    target.focus();
    if (target.select && target.tagName === "INPUT") target.select();
    rows[index].scrollIntoView({block: "nearest"});
  }
  function indexOf(element) {
    return rows.indexOf(element.closest("tr.board"));
  }
  function setResult(row, code) {
    var select = parts(row).result;
    select.value = code;
    touched = true;
    validate();
    focusRow(rows.indexOf(row) + 1);
  }

  form.addEventListener("keydown", function (event) {
    var target = event.target;
    if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
      event.preventDefault();
      form.requestSubmit(document.getElementById("save-round"));
      return;
    }
    if (!target.closest || !target.closest("tr.board") || event.altKey || event.ctrlKey || event.metaKey) return;
    var index = indexOf(target);
    var column = target.matches("select.result") ? "result" : target.name.split("-")[1];
    if (event.key === "ArrowDown" || event.key === "ArrowUp") {
      event.preventDefault();
      focusRow(index + (event.key === "ArrowDown" ? 1 : -1), column === "result" ? null : column);
      return;
    }
    if (column === "result") {
      var code = keys[event.key] || keys[event.key.toLowerCase()];
      if (code) {
        event.preventDefault();
        setResult(rows[index], code);
      } else if (event.key === "Enter") {
        event.preventDefault();
        focusRow(index + 1);
      } else if (event.key.length === 1) {
        event.preventDefault(); // no type-ahead: only the result keys change a result
      }
    } else if (event.key === "Enter") {
      event.preventDefault();
      var f = parts(rows[index]);
      (column === "white" ? f.black : f.result).focus();
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
    if (event.target.matches("select.result")) { touched = true; validate(); }
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
