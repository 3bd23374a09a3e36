/* The component page (component.html?topology_id=<id>&id=<component>): stats per window,
 * input and output streams, executors with their worker logs, errors. */
"use strict";

(function () {
  var el = UI.el, fmt = UI.fmt;
  var query = UI.params();
  var topologyId = query.get("topology_id");
  var componentId = query.get("id");

  function summary(c) {
    return UI.facts("component-facts", [
      ["Topology", el("a", {href: UI.topologyHref(topologyId)}, c.name)],
      ["Topology status", c.topologyStatus], ["Executors", fmt(c.executors)],
      ["Tasks", fmt(c.tasks)],
      ["Debug", c.debug ? "on, sampling " + fmt(c.samplingPct) + " %" : "off", "debug"],
      ["Event log", UI.logLink(c.eventLogLink, "events.log")]]);
  }

  function isBolt(c) { return c.componentType === "bolt"; }

  /* The figures of a window or an executor: a bolt's or a spout's. */
  function figureKeys(c) {
    return isBolt(c)
      ? ["emitted", "transferred", "capacity", "executeLatency", "executed", "processLatency",
         "acked", "failed"]
      : ["emitted", "transferred", "completeLatency", "acked", "failed"];
  }

  function windowTable(c) {
    return UI.table("window-stats-table", [
      {key: "window", title: "Window", value: function (s) {
        return el("a", {href: UI.componentHref(topologyId, componentId) + "&window=" +
                        encodeURIComponent(s.window)}, s.windowPretty);
      }}
    ].concat(UI.figures(figureKeys(c))),
      UI.byWindow(isBolt(c) ? c.boltStats : c.spoutSummary));
  }

  function inputTable(c) {
    return UI.table("input-stats-table", [
      {key: "component", title: "Component", value: function (i) {
        return el("a", {href: UI.componentHref(topologyId, i.component)}, i.component);
      }},
      {key: "stream", title: "Stream"}
    ].concat(UI.figures(["executeLatency", "processLatency", "executed", "acked", "failed"])),
      c.inputStats || [], "No tuples received in this window.");
  }

  function outputTable(c) {
    var keys = isBolt(c) ? ["emitted", "transferred"]
      : ["emitted", "transferred", "completeLatency", "acked", "failed"];
    return UI.table("output-stats-table", [{key: "stream", title: "Stream"}].concat(
      UI.figures(keys)), c.outputStats || [], "Nothing emitted in this window.");
  }

  function executorTable(c) {
    return UI.table("executors-table", [
      {key: "id", title: "Id"}, {key: "uptime", title: "Uptime"}, {key: "host", title: "Host"},
      UI.PORT
    ].concat(UI.figures(figureKeys(c)), [
      {key: "workerLogLink", title: "Log", value: function (e) {
        return UI.logLink(e.workerLogLink, "worker.log");
      }}]), c.executorStats || [], "No executors.");
  }

  function errorTable(c) {
    return UI.table("errors-table", [
      {key: "errorTime", title: "Time", value: function (e) { return UI.fmtTime(e.errorTime); }},
      {key: "errorHost", title: "Where", value: function (e) {
        return UI.logLink(e.errorWorkerLogLink, e.errorHost + ":" + e.errorPort) ||
          (e.errorHost || "");
      }},
      {key: "error", title: "Error", value: function (e) {
        return el("pre", {class: "error-text"}, e.error);
      }}], c.componentErrors || [], "No errors.");
  }

  function debugButtons(c) {
    var base = "topology/" + encodeURIComponent(topologyId) + "/component/" +
      encodeURIComponent(componentId) + "/debug/";
    function ask() {
      var fields = c.debug ? [] : [{name: "pct", label: "Sampling (%)",
                                    value: c.samplingPct || 10, min: 0, max: 100}];
      var verb = c.debug ? "Stop debugging" : "Debug";
      UI.confirm(verb, verb + " component " + componentId + "?", fields).then(function (v) {
        if (v === null) return;
        var path = base + (c.debug ? "disable/" + c.samplingPct : "enable/" + v.pct);
        return UI.post(path).then(function (answer) {
          UI.notice(verb + ": " + answer.status);
          return reload();
        });
      }).catch(UI.showError);
    }
    return el("button", {id: c.debug ? "action-debug-disable" : "action-debug-enable",
                         type: "button", onclick: ask,
                         disabled: c.topologyStatus === "KILLED"},
              c.debug ? "Stop debug" : "Debug");
  }

  function load() {
    if (!topologyId || !componentId) throw new UI.ApiError("component", 400, {
      error: "No component", errorMessage:
        "Open a component from its topology's page (component.html?topology_id=<id>&id=<c>)."});
    var path = "topology/" + encodeURIComponent(topologyId) + "/component/" +
      encodeURIComponent(componentId) + UI.statsQuery();
    return UI.api(path).then(function (c) {
      document.title = "pynimbus: " + componentId;
      var crumb = document.getElementById("crumb-topology");
      crumb.href = UI.topologyHref(topologyId);
      crumb.textContent = c.name;
      UI.fill("crumb-component", componentId);
      UI.fill("component-type", isBolt(c) ? "Bolt" : "Spout");
      UI.fill("component-name", componentId);
      UI.fill("component-summary", summary(c));
      UI.fill("component-actions", debugButtons(c));
      UI.fill("window-stats", windowTable(c));
      document.getElementById("input-section").hidden = !isBolt(c);
      ["input-window", "output-window", "executor-window"].forEach(function (id) {
        UI.fill(id, "(" + c.windowHint + ")");
      });
      if (isBolt(c)) UI.fill("input-stats", inputTable(c));
      UI.fill("output-stats", outputTable(c));
      UI.fill("executors", executorTable(c));
      UI.fill("errors", errorTable(c));
    });
  }

  var reload = UI.loader(load);
  UI.controls(reload, true);
  reload();
})();
