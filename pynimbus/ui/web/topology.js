/* The topology page (topology.html?id=<id>): summary, lifecycle actions, stats per window,
 * the graph, spouts, bolts, workers and configuration. */
"use strict";

(function () {
  var el = UI.el, fmt = UI.fmt;
  var topologyId = UI.params().get("id");
  var page = null;  // the last /topology/<id> answer
  var configurationShown = false;

  var isSystem = UI.isSystem;

  function summary(t) {
    return UI.facts("topology-facts", [
      ["Id", t.id], ["Owner", t.owner], ["Status", t.status, "status"],
      ["Uptime", t.uptime], ["Workers", fmt(t.workersTotal)],
      ["Executors", fmt(t.executorsTotal)], ["Tasks", fmt(t.tasksTotal)],
      ["Message timeout", fmt(t.msgTimeout) + " s"],
      ["Debug", t.debug ? "on, sampling " + fmt(t.samplingPct) + " %" : "off", "debug"],
      ["Scheduler info", t.schedulerInfo]]);
  }

  function statsTable(t) {
    return UI.table("topology-stats-table", [
      {key: "window", title: "Window", value: function (s) {
        return el("a", {href: "?id=" + encodeURIComponent(topologyId) + "&window=" +
                        encodeURIComponent(s.window)}, s.windowPretty);
      }}
    ].concat(UI.figures(["emitted", "transferred", "completeLatency", "acked", "failed"])),
      UI.byWindow(t.topologyStats));
  }

  function lastError(c) {
    if (!c.lastError) return "";
    return el("span", {class: "error-cell", title: c.lastError},
              c.lastError.split("\n")[0], " ",
              c.errorHost ? UI.logLink(c.errorWorkerLogLink,
                                       c.errorHost + ":" + c.errorPort) : "");
  }

  function componentLink(id) {
    return el("a", {href: UI.componentHref(topologyId, id)}, id);
  }

  function spoutTable(t) {
    return UI.table("spouts-table", [
      {key: "spoutId", title: "Id", value: function (s) { return componentLink(s.spoutId); }}
    ].concat(UI.figures(["executors", "tasks", "emitted", "transferred", "completeLatency",
                         "acked", "failed"]),
             [{key: "lastError", title: "Last error", value: lastError}]),
      t.spouts, "No spouts.");
  }

  function boltTable(t) {
    return UI.table("bolts-table", [
      {key: "boltId", title: "Id", value: function (b) { return componentLink(b.boltId); }}
    ].concat(UI.figures(["executors", "tasks", "emitted", "transferred", "capacity",
                         "executeLatency", "executed", "processLatency", "acked", "failed"]),
             [{key: "lastError", title: "Last error", value: lastError}]),
      t.bolts, "No bolts.");
  }

  function workerTable(t) {
    return UI.table("workers-table", [
      {key: "host", title: "Host"}, UI.PORT,
      {key: "uptime", title: "Uptime"},
      {key: "executorsTotal", title: "Executors", num: true},
      UI.workerComponentsColumn(),
      {key: "supervisorId", title: "Supervisor", value: function (w) {
        return el("a", {href: UI.supervisorHref(w.supervisorId)}, w.supervisorId);
      }},
      {key: "workerLogLink", title: "Log", value: function (w) {
        return UI.logLink(w.workerLogLink, "worker.log");
      }},
      {key: "profiling", title: "Profiling and debugging", value: function (w) {
        return profilingButtons(t, w);
      }}], t.workers, "No workers.");
  }

  /* -- a worker's profiling and debugging (Storm's UI has them on the component page):
   * the request goes to Nimbus, the worker's supervisor carries it out, the dump appears on
   * the logviewer's /dumps page of the worker */

  var PROFILING = [
    {verb: "dumpjstack", label: "JStack"},
    {verb: "dumpheap", label: "Heap"},
    {verb: "start", label: "Profile", minutes: true},
    {verb: "dumpprofile", label: "Dump profile"},
    {verb: "stop", label: "Stop profile"},
    {verb: "restartworker", label: "Restart", danger: true}];

  function hostPort(w) { return w.host + ":" + w.port; }

  /* "<host>:<port>" in a path, as the profiling and dumps paths name a worker. */
  function hostPortPath(w) { return encodeURIComponent(w.host) + ":" + w.port; }

  function profilingPath(action, w, values) {
    var path = "topology/" + encodeURIComponent(topologyId) + "/profiling/" + action.verb +
      "/" + hostPortPath(w);
    return action.minutes ? path + "/" + values.minutes : path;
  }

  /* The worker's /dumps page, on the logviewer its log link names. */
  function dumpsHref(w) {
    if (!w.workerLogLink) return null;
    return new URL(w.workerLogLink).origin + "/dumps/" + encodeURIComponent(topologyId) + "/" +
      hostPortPath(w);
  }

  function runProfiling(action, t, w) {
    var fields = action.minutes ? [{name: "minutes", label: "For (minutes)", value: 10,
                                    min: 1}] : [];
    var message = action.label + ": the worker on " + hostPort(w) + " of " + t.name + "?";
    UI.confirm(action.label, message, fields).then(function (values) {
      if (values === null) return;
      UI.notice(action.label + "…");
      var path = profilingPath(action, w, values);
      // 1.x's UI takes these as GET, 2.8.8's as POST (its pages carry topologyVersion)
      var sent = "topologyVersion" in t ? UI.post(path) : UI.api(path);
      return sent.then(function (answer) {
        UI.notice(action.label + " (" + hostPort(w) + "): " + answer.status +
                  (action.verb === "restartworker" ? "" : "; the dump is listed under Dumps"));
      });
    }).catch(function (error) { UI.notice(""); UI.showError(error); });
  }

  function profilingButtons(t, w) {
    var buttons = PROFILING.map(function (action) {
      return el("button", {type: "button", class: "small" + (action.danger ? " danger" : ""),
                           "data-profile": action.verb, "data-worker": hostPort(w),
                           disabled: t.status === "KILLED",
                           onclick: function () { runProfiling(action, t, w); }},
                action.label);
    });
    var dumps = dumpsHref(w);
    if (dumps) {
      buttons.push(el("a", {href: dumps, class: "dumps-link", target: "_blank",
                            rel: "noopener"}, "Dumps"));
    }
    return buttons;
  }

  /* -- the graph, from /visualization (Storm's mk-visualization-data: keys with a colon) */

  function field(map, name) {
    return map[":" + name] !== undefined ? map[":" + name] : map[name];
  }

  /* Nodes and edges of the graph; system components and streams only with `sys`. */
  function graphOf(data) {
    var nodes = [], edges = [];
    Object.keys(data).forEach(function (id) {
      var c = data[id];
      if (!UI.showSys() && isSystem(id)) return;
      var type = field(c, "type");
      nodes.push({id: id, type: type, link: UI.componentHref(topologyId, id),
                  capacity: field(c, "capacity"), caption: caption(type, c)});
      (field(c, "inputs") || []).forEach(function (input) {
        var stream = field(input, "stream");
        if (!UI.showSys() && isSystem(stream)) return;
        edges.push({from: field(input, "component"), to: id, stream: stream,
                    grouping: field(input, "grouping")});
      });
    });
    return {nodes: nodes, edges: edges};
  }

  function caption(type, c) {
    if (type === "bolt") {
      var capacity = Number(field(c, "capacity"));
      return "capacity " + (isNaN(capacity) ? "?" : capacity.toFixed(3));
    }
    return "transferred " + fmt(field(c, "transferred") || 0);
  }

  function loadGraph() {
    var path = "topology/" + encodeURIComponent(topologyId) + "/visualization" +
      UI.statsQuery();
    return UI.api(path).then(function (data) {
      var graph = graphOf(data);
      UI.fill("topology-graph", Graph.draw(graph.nodes, graph.edges));
    });
  }

  /* -- actions */

  var ACTIONS = [
    {name: "activate", label: "Activate", when: function (t) { return t.status !== "ACTIVE"; }},
    {name: "deactivate", label: "Deactivate",
     when: function (t) { return t.status === "ACTIVE"; }},
    {name: "rebalance", label: "Rebalance", wait: true},
    {name: "kill", label: "Kill", wait: true, danger: true},
    {name: "debug-enable", label: "Debug", pct: true, when: function (t) { return !t.debug; }},
    {name: "debug-disable", label: "Stop debug", when: function (t) { return t.debug; }}];

  function actionPath(action, values) {
    var base = "topology/" + encodeURIComponent(topologyId) + "/";
    if (action.wait) return base + action.name + "/" + values.wait;
    if (action.name === "debug-enable") return base + "debug/enable/" + values.pct;
    if (action.name === "debug-disable") return base + "debug/disable/" + page.samplingPct;
    return base + action.name;
  }

  function actionFields(action) {
    if (action.wait) {
      return [{name: "wait", label: "Wait (seconds)", value: page.msgTimeout || 30, min: 0}];
    }
    if (action.pct) {
      return [{name: "pct", label: "Sampling (%)", value: page.samplingPct || 10, min: 0,
               max: 100}];
    }
    return [];
  }

  function runAction(action) {
    var message = action.label + " topology " + page.name + " (" + topologyId + ")?";
    UI.confirm(action.label, message, actionFields(action)).then(function (values) {
      if (values === null) return;
      UI.notice(action.label + "…");
      return UI.post(actionPath(action, values)).then(function (answer) {
        UI.notice(action.label + ": " + answer.status);
        // a killed topology is soon gone (at once with no wait): back to the cluster
        if (action.name === "kill") window.location.assign("/");
        else return reload();
      });
    }).catch(function (error) { UI.notice(""); UI.showError(error); });
  }

  function actionButtons(t) {
    return ACTIONS.map(function (action) {
      var allowed = t.status !== "KILLED" && (!action.when || action.when(t));
      return el("button", {id: "action-" + action.name, type: "button",
                           class: action.danger ? "danger" : null, disabled: !allowed,
                           onclick: function () { runAction(action); }}, action.label);
    });
  }

  /* -- log levels (Storm's "Change Log Level"): /logconfig's loggers, and a form to set
   * one; the form is built once, so that a refresh never clears what is being typed */

  var LEVELS = ["OFF", "FATAL", "ERROR", "WARN", "INFO", "DEBUG", "TRACE", "ALL"];

  function logConfigPath() {
    return "topology/" + encodeURIComponent(topologyId) + "/logconfig";
  }

  function setLogLevels(named, what) {
    UI.notice(what + "…");
    return UI.post(logConfigPath(), {namedLoggerLevels: named}).then(function (answer) {
      UI.notice(what + ": done");
      showLogLevels(answer);
    }).catch(function (error) { UI.notice(""); UI.showError(error); });
  }

  function showLogLevels(config) {
    var named = (config && config.namedLoggerLevels) || {};
    var rows = Object.keys(named).sort().map(function (name) {
      return Object.assign({logger: name}, named[name]);
    });
    UI.fill("log-levels", UI.table("log-levels-table", [
      {key: "logger", title: "Logger"},
      {key: "target_level", title: "Level"},
      {key: "timeout", title: "For (seconds)", num: true},
      {key: "timeout_epoch", title: "Until", value: function (r) {
        return r.timeout_epoch ? UI.fmtTime(r.timeout_epoch / 1000) : "cleared by hand";
      }},
      {key: "clear", title: "", value: function (r) {
        return el("button", {type: "button", class: "small", "data-clear": r.logger,
                             onclick: function () {
                               var named = {};
                               named[r.logger] = {};  // no target level: removed
                               setLogLevels(named, "Clear " + r.logger);
                             }}, "Clear");
      }}], rows, "No logger set: the workers log at their own levels."));
  }

  function buildLogLevelForm() {
    var form = document.getElementById("log-level-form");
    var logger = el("input", {name: "logger", value: "ROOT", required: true, size: 28,
                              "aria-label": "Logger"});
    var level = el("select", {name: "level", "aria-label": "Level"}, LEVELS.map(function (l) {
      return el("option", {value: l, selected: l === "DEBUG"}, l);
    }));
    var timeout = el("input", {name: "timeout", type: "number", value: 30, min: 0, step: 1,
                               required: true, "aria-label": "For (seconds)"});
    UI.fill("log-level-form", [
      el("label", null, "Logger ", logger), el("label", null, "Level ", level),
      el("label", null, "For (seconds) ", timeout),
      el("button", {type: "submit", id: "log-level-apply"}, "Apply")]);
    form.addEventListener("submit", function (event) {
      event.preventDefault();
      var named = {};
      named[logger.value.trim()] = {target_level: level.value, reset_level: "INFO",
                                    timeout: Number(timeout.value)};
      setLogLevels(named, "Set " + logger.value.trim() + " to " + level.value);
    });
  }

  var logLevelFormBuilt = false;

  function loadLogLevels() {
    if (!logLevelFormBuilt) {
      buildLogLevelForm();
      logLevelFormBuilt = true;
    }
    return UI.api(logConfigPath()).then(showLogLevels);
  }

  function load() {
    if (!topologyId) throw new UI.ApiError("topology", 400, {error: "No topology",
      errorMessage: "Open a topology from the cluster page (topology.html?id=<id>)."});
    var path = "topology/" + encodeURIComponent(topologyId) + UI.statsQuery();
    return UI.api(path).then(function (t) {
      page = t;
      UI.setAntiForgeryToken(t.antiForgeryToken);
      document.title = "pynimbus: " + t.name;
      UI.fill("crumb-topology", t.name);
      UI.fill("topology-name", t.name);
      UI.fill("topology-status", el("span", {class: "status status-" +
                                             String(t.status).toLowerCase()}, t.status));
      UI.fill("topology-summary", summary(t));
      UI.fill("topology-actions", actionButtons(t));
      UI.fill("topology-stats", statsTable(t));
      UI.fill("spouts-window", "(" + t.windowHint + ")");
      UI.fill("bolts-window", "(" + t.windowHint + ")");
      UI.fill("spouts", spoutTable(t));
      UI.fill("bolts", boltTable(t));
      UI.fill("workers", workerTable(t));
      if (!configurationShown) {  // a topology's configuration is fixed at submission
        UI.fill("topology-configuration-table", UI.configuration(t.configuration));
        configurationShown = true;
      }
      return Promise.all([loadGraph(), loadLogLevels()]);
    });
  }

  var reload = UI.loader(load);
  UI.controls(reload, true);
  reload();
})();
