/* pynimbus web UI: what every page shares.
 *
 * Everything on a page comes from the REST API under /api/v1/ (Storm 1.2.4's UI API).  Text
 * from the API is always set as text, never parsed as HTML: component ids, errors and
 * configuration values are the user's.
 */
"use strict";

var UI = (function () {
  var API_ROOT = "/api/v1/";
  var REFRESH_SECS = 10;
  var WINDOWS = [["600", "10 minutes"], ["10800", "3 hours"], ["86400", "1 day"],
                 [":all-time", "All time"]];

  /* An answer of the API that is not a 2xx: its {"error", "errorMessage"} when it has one. */
  function ApiError(path, status, body) {
    this.path = path;
    this.status = status;
    this.error = (body && body.error) || ("HTTP " + status);
    this.errorMessage = (body && body.errorMessage) || (typeof body === "string" ? body : "");
  }

  function readBody(response) {
    return response.text().then(function (text) {
      try { return JSON.parse(text); } catch (e) { return text; }
    });
  }

  /* GET (or POST with a JSON body) one API path; resolves to the parsed JSON, rejects with
   * an ApiError (or the network's TypeError). */
  function api(path, method, body, token) {
    var options = {method: method || "GET", headers: {"Accept": "application/json"}};
    if (token) options.headers["X-CSRF-Token"] = token;
    if (body !== undefined) {
      options.headers["Content-Type"] = "application/json";
      options.body = JSON.stringify(body);
    }
    return fetch(API_ROOT + path, options).then(function (response) {
      return readBody(response).then(function (parsed) {
        if (!response.ok) throw new ApiError(path, response.status, parsed);
        return parsed;
      });
    });
  }

  /* The session's anti-forgery token, when the server asks for one
   * (pynimbus.ui.anti.forgery): the topology page carries it, /api/v1/token gives it. */
  var antiForgeryToken = null;

  function setAntiForgeryToken(token) {
    if (token) antiForgeryToken = token;
  }

  /* POST an action.  Refused (403) without a token, it asks for the session's token and
   * tries once more; a server that has no tokens answers that with 404, and the first
   * refusal stands. */
  function post(path, body) {
    return api(path, "POST", body, antiForgeryToken).catch(function (refused) {
      if (!(refused instanceof ApiError) || refused.status !== 403) throw refused;
      return api("token").then(function (answer) {
        if (!answer.antiForgeryToken || answer.antiForgeryToken === antiForgeryToken) {
          throw refused;
        }
        antiForgeryToken = answer.antiForgeryToken;
        return api(path, "POST", body, antiForgeryToken);
      }, function () { throw refused; });
    });
  }

  /* One element: el("td", {class: "num"}, "12", otherNode). Strings become text nodes. */
  function el(tag, attrs) {
    var node = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (name) {
      var value = attrs[name];
      if (value === undefined || value === null || value === false) return;
      if (name === "text") node.textContent = value;
      else if (name.slice(0, 2) === "on") node.addEventListener(name.slice(2), value);
      else node.setAttribute(name, value === true ? "" : value);
    });
    for (var i = 2; i < arguments.length; i++) append(node, arguments[i]);
    return node;
  }

  function append(node, child) {
    if (child === undefined || child === null) return;
    if (Array.isArray(child)) child.forEach(function (c) { append(node, c); });
    else node.appendChild(child instanceof Node ? child : document.createTextNode(String(child)));
  }

  /* A link to a worker's log on the logviewer, as the API gives it ("" when it has none). */
  function logLink(href, text) {
    return href ? el("a", {href: href, class: "log-link", target: "_blank", rel: "noopener"},
                     text || "log") : "";
  }

  function topologyHref(id) {
    return "topology.html?id=" + encodeURIComponent(id);
  }

  /* A system component or stream (Storm's __acker, __system, __metrics, ...). */
  function isSystem(id) { return String(id).slice(0, 2) === "__"; }

  /* The workers tables' components column: "name (tasks)", system ones only with `sys`. */
  function workerComponentsColumn() {
    return {key: "components", title: "Components", value: function (w) {
      var tasks = w.componentNumTasks || {};
      return Object.keys(tasks).sort().filter(function (c) {
        return showSys() || !isSystem(c);
      }).map(function (c) { return c + " (" + tasks[c] + ")"; }).join(", ");
    }};
  }

  function supervisorHref(id) {
    return "supervisor.html?id=" + encodeURIComponent(id);
  }

  function componentHref(topologyId, componentId) {
    return "component.html?topology_id=" + encodeURIComponent(topologyId) +
      "&id=" + encodeURIComponent(componentId);
  }

  function fmt(value) {
    if (value === undefined || value === null || value === "") return "";
    if (typeof value === "number" && !Number.isInteger(value)) return value.toFixed(3);
    if (typeof value === "number") return value.toLocaleString("en-US");
    return String(value);
  }

  function fmtTime(secs) {
    return secs ? new Date(secs * 1000).toLocaleString() : "";
  }

  /* The API's figures: key -> column title (each a right-aligned number). */
  var FIGURES = {
    executors: "Executors", tasks: "Tasks", emitted: "Emitted", transferred: "Transferred",
    completeLatency: "Complete latency (ms)", capacity: "Capacity",
    executeLatency: "Execute latency (ms)", executed: "Executed",
    processLatency: "Process latency (ms)", acked: "Acked", failed: "Failed",
    executorsTotal: "Executors"
  };

  /* A port column: a number, but not a quantity (no digit grouping). */
  var PORT = {key: "port", title: "Port", num: true, value: function (row) {
    return row.port === undefined || row.port === null ? "" : String(row.port);
  }};

  /* Number columns for `keys` (names of FIGURES), for table(). */
  function figures(keys) {
    return keys.map(function (key) { return {key: key, title: FIGURES[key], num: true}; });
  }

  /* A table of rows; columns: [{key, title, value(row) -> text or node, num}]. Each cell
   * carries data-col=key so that a reader (or a test) can find a value by its column. */
  function table(id, columns, rows, empty) {
    var head = el("tr", null, columns.map(function (c) {
      return el("th", {class: c.num ? "num" : null, title: c.help}, c.title);
    }));
    var body = rows.map(function (row) {
      return el("tr", null, columns.map(function (c) {
        var value = c.value ? c.value(row) : fmt(row[c.key]);
        return el("td", {"data-col": c.key, class: c.num ? "num" : null}, value);
      }));
    });
    if (!rows.length) {
      body = [el("tr", {class: "empty"},
                 el("td", {colspan: columns.length}, empty || "Nothing to show."))];
    }
    return el("table", {id: id, class: "data"}, el("thead", null, head), el("tbody", null, body));
  }

  /* A definition list of [label, value] pairs, for a summary. */
  function facts(id, pairs) {
    return el("dl", {id: id, class: "facts"}, pairs.map(function (pair) {
      return el("div", {"data-fact": pair[2] || null}, el("dt", null, pair[0]),
                el("dd", null, pair[1] === undefined ? "" : pair[1]));
    }));
  }

  /* A configuration map as a table of key and value sorted by key, under a box that keeps
   * only the keys containing what is typed in it (kept across refreshes). */
  function configuration(conf) {
    var rows = Object.keys(conf || {}).sort().map(function (key) {
      return {key: key, value: conf[key]};
    });
    var shown = el("div", null);
    var filter = el("input", {type: "search", class: "config-filter", placeholder: "Filter keys",
                              value: configFilter, oninput: function () {
                                configFilter = filter.value;
                                draw();
                              }});
    function draw() {
      var wanted = configFilter.toLowerCase();
      shown.replaceChildren(table("configuration-table", [
        {key: "key", title: "Key"},
        {key: "value", title: "Value", value: function (r) {
          return typeof r.value === "string" ? r.value : JSON.stringify(r.value);
        }}], rows.filter(function (r) { return r.key.toLowerCase().indexOf(wanted) >= 0; }),
        "No key contains that."));
    }
    draw();
    return [filter, shown];
  }
  var configFilter = "";

  /* Put `content` into the element with `id`, replacing what it had. */
  function fill(id, content) {
    var target = document.getElementById(id);
    target.replaceChildren();
    append(target, content);
  }

  /* Show an API failure to the user (or clear it with null). */
  function showError(error) {
    var banner = document.getElementById("error-banner");
    banner.replaceChildren();
    if (!error) { banner.hidden = true; return; }
    var title = error instanceof ApiError
      ? error.error + " on " + error.path
      : "The UI server did not answer: " + error;
    var message = (error.errorMessage || "").trim();
    var lines = message.split("\n");
    // a server trace ends with the exception and its message: that is what the user needs
    append(banner, [el("strong", null, title),
                    message ? el("p", {class: "error-summary"}, lines[lines.length - 1]) : null,
                    lines.length > 1 ? el("details", null, el("summary", null, "Details"),
                                          el("pre", {class: "error-message"}, message))
                                     : null]);
    banner.hidden = false;
  }

  function params() { return new URLSearchParams(window.location.search); }

  /* A URL parameter kept in the address bar (so that reload and links keep it). */
  function setParam(name, value) {
    var query = params();
    query.set(name, value);
    window.history.replaceState(null, "", "?" + query.toString());
  }

  function windowParam() {
    var asked = params().get("window");
    return WINDOWS.some(function (w) { return w[0] === asked; }) ? asked : ":all-time";
  }

  /* Stats rows ([{window, ...}]) from the shortest window to all-time. */
  function byWindow(rows) {
    var order = WINDOWS.map(function (w) { return w[0]; });
    return (rows || []).slice().sort(function (a, b) {
      return order.indexOf(String(a.window)) - order.indexOf(String(b.window));
    });
  }

  function showSys() {
    return window.localStorage.getItem("pynimbus.ui.sys") === "true";
  }

  /* The query the topology and component pages add: window and sys. */
  function statsQuery() {
    return "?window=" + encodeURIComponent(windowParam()) + "&sys=" + showSys();
  }

  /* The toolbar's controls: on a topology's pages (`ofTopology`) the stats window and
   * whether system components show; everywhere auto-refresh.  `reload` is called when one
   * changes. */
  function controls(reload, ofTopology) {
    var bar = document.getElementById("controls");
    if (ofTopology) {
      var select = el("select", {id: "window", onchange: function () {
        setParam("window", select.value);
        reload();
      }}, WINDOWS.map(function (w) {
        return el("option", {value: w[0], selected: w[0] === windowParam()}, w[1]);
      }));
      append(bar, el("label", null, "Window ", select));
      var sys = el("input", {type: "checkbox", id: "show-sys", checked: showSys(),
                             onchange: function () {
                               window.localStorage.setItem("pynimbus.ui.sys", sys.checked);
                               reload();
                             }});
      append(bar, el("label", null, sys, " System components"));
    }
    var auto = el("input", {type: "checkbox", id: "auto-refresh",
                            checked: window.localStorage.getItem("pynimbus.ui.refresh") !==
                              "false",
                            onchange: function () {
                              window.localStorage.setItem("pynimbus.ui.refresh", auto.checked);
                            }});
    append(bar, el("label", null, auto, " Refresh every " + REFRESH_SECS + " s"));
    append(bar, el("span", {id: "updated", class: "muted"}));
    window.setInterval(function () { if (auto.checked) reload(); }, REFRESH_SECS * 1000);
  }

  /* Run `load` (a function returning a Promise) now and whenever asked, one run at a time;
   * failures go to the error banner, success clears it. */
  function loader(load) {
    var running = null, loads = 0;
    function run() {
      if (running) return running;
      running = Promise.resolve().then(load).then(function () {
        showError(null);
        var updated = document.getElementById("updated");
        if (updated) updated.textContent = "Updated " + new Date().toLocaleTimeString();
        document.body.setAttribute("data-loaded", "true");
        loads += 1;
        document.body.setAttribute("data-loads", loads);
      }, showError).then(function () { running = null; });
      return running;
    }
    return run;
  }

  /* Ask before an action: a modal dialog with `message` and number `fields`
   * ([{name, label, value, min, max}]); resolves to {name: number} or null when cancelled. */
  function confirm(title, message, fields) {
    return new Promise(function (resolve) {
      var inputs = (fields || []).map(function (f) {
        return el("input", {type: "number", name: f.name, value: f.value, min: f.min,
                            max: f.max, required: true, step: 1});
      });
      var form = el("form", {method: "dialog"},
        el("h2", null, title), el("p", null, message),
        (fields || []).map(function (f, i) { return el("label", null, f.label, inputs[i]); }),
        el("menu", null,
           el("button", {value: "cancel", type: "button", id: "dialog-cancel",
                         onclick: function () { dialog.close("cancel"); }}, "Cancel"),
           el("button", {value: "ok", id: "dialog-confirm", class: "primary"}, "Confirm")));
      var dialog = el("dialog", {id: "confirm-dialog"}, form);
      dialog.addEventListener("close", function () {
        var values = null;
        if (dialog.returnValue === "ok") {
          values = {};
          (fields || []).forEach(function (f, i) { values[f.name] = Number(inputs[i].value); });
        }
        dialog.remove();
        resolve(values);
      });
      document.body.appendChild(dialog);
      dialog.showModal();
    });
  }

  /* A short notice after an action. */
  function notice(text) {
    var box = document.getElementById("notice");
    box.textContent = text;
    box.hidden = !text;
  }

  return {
    api: api, post: post, setAntiForgeryToken: setAntiForgeryToken, el: el, logLink: logLink,
    fmt: fmt, fmtTime: fmtTime, table: table, figures: figures, facts: facts,
    PORT: PORT, configuration: configuration,
    fill: fill, showError: showError,
    params: params, statsQuery: statsQuery, windowParam: windowParam, byWindow: byWindow,
    showSys: showSys, controls: controls, loader: loader, confirm: confirm, notice: notice,
    topologyHref: topologyHref, componentHref: componentHref, supervisorHref: supervisorHref,
    isSystem: isSystem, workerComponentsColumn: workerComponentsColumn, ApiError: ApiError
  };
})();
