// The logviewer's search page: the matches of one file, read from /search/<file> (the answer
// Storm's logviewer gives), each with its context and a link to the log page around it.
"use strict";

(function () {
  var query = new URLSearchParams(window.location.search);
  var file = query.get("file") || "";
  var search = query.get("search") || "";
  var offset = query.get("offset") || "0";
  var isDaemon = query.get("is-daemon") === "yes" ? "yes" : "no";

  document.getElementById("file").value = file;
  document.getElementById("search").value = search;
  document.getElementById("is-daemon").value = isDaemon;
  var status = document.getElementById("status");

  function cell(row, text, className) {
    var td = document.createElement("td");
    if (className) {
      td.className = className;
    }
    td.textContent = text;
    row.appendChild(td);
    return td;
  }

  function show(answer) {
    var body = document.querySelector("#matches tbody");
    var matches = answer.matches || [];
    status.textContent = matches.length + " match" + (matches.length === 1 ? "" : "es") +
      " of \u201c" + search + "\u201d in " + file;
    matches.forEach(function (match) {
      var row = document.createElement("tr");
      var where = cell(row, "");
      var link = document.createElement("a");
      link.href = match.logviewerURL;
      link.textContent = String(match.byteOffset);
      where.appendChild(link);
      var text = cell(row, "", "match");
      var before = document.createElement("span");
      before.textContent = match.beforeString;
      var found = document.createElement("mark");
      found.textContent = match.matchString;
      var after = document.createElement("span");
      after.textContent = match.afterString;
      text.appendChild(before);
      text.appendChild(found);
      text.appendChild(after);
      body.appendChild(row);
    });
    if (answer.nextByteOffset !== undefined && answer.nextByteOffset !== null &&
        matches.length > 0) {
      var next = document.getElementById("next");
      next.href = "logviewer_search.html?" + new URLSearchParams({
        file: file, search: search, offset: answer.nextByteOffset, "is-daemon": isDaemon
      }).toString();
      next.hidden = false;
    }
  }

  if (!file || !search) {
    status.textContent = "Give a file and the text to search for.";
    return;
  }
  status.textContent = "Searching\u2026";
  var url = "/search/" + encodeURIComponent(file) + "?" + new URLSearchParams({
    "search-string": search, "start-byte-offset": offset, "is-daemon": isDaemon
  }).toString();
  fetch(url).then(function (response) {
    return response.text().then(function (text) {
      if (!response.ok) {
        throw new Error("HTTP " + response.status + ": " + text.slice(0, 300));
      }
      return JSON.parse(text);
    });
  }).then(show).catch(function (error) {
    status.textContent = "The search failed: " + error.message;
  });
})();
