/* The supervisor page (supervisor.html?id=<id> or ?host=<host>): the supervisor (every one
 * on the host) and the workers it runs, from /api/v1/supervisor, as Storm's supervisor page
 * shows them. */
"use strict";

(function () {
  var el = UI.el, fmt = UI.fmt;
  var query = UI.params();
  var supervisorId = query.get("id");
  var host = query.get("host");

  function supervisorTable(body) {
    return UI.table("supervisor-table", [
      {key: "id", title: "Id"}, {key: "host", title: "Host"},
      {key: "uptime", title: "Uptime"},
      {key: "slotsTotal", title: "Slots", num: true},
      {key: "slotsUsed", title: "Used slots", num: true},
      {key: "usedMem", title: "Used memory (MB)", num: true},
      {key: "totalMem", title: "Memory (MB)", num: true},
      {key: "version", title: "Version"},
      {key: "logLink", title: "Log", value: function (s) {
        return UI.logLink(s.logLink, "supervisor.log");
      }}], body.supervisors || [], "No such supervisor is registered.");
  }

  function workerTable(body) {
    return UI.table("workers-table", [
      {key: "topologyName", title: "Topology", value: function (w) {
        return el("a", {href: UI.topologyHref(w.topologyId)}, w.topologyName);
      }},
      {key: "host", title: "Host"}, UI.PORT,
      {key: "uptime", title: "Uptime"},
      {key: "executorsTotal", title: "Executors", num: true},
      UI.workerComponentsColumn(),
      {key: "workerLogLink", title: "Log", value: function (w) {
        return UI.logLink(w.workerLogLink, "worker.log");
      }}], body.workers || [], "This supervisor runs no worker.");
  }

  function load() {
    if (!supervisorId && !host) throw new UI.ApiError("supervisor", 400, {
      error: "No supervisor", errorMessage:
        "Open a supervisor from the cluster page (supervisor.html?id=<id> or ?host=<host>)."});
    var path = "supervisor?" + (supervisorId ? "id=" + encodeURIComponent(supervisorId)
                                              : "host=" + encodeURIComponent(host)) +
      "&sys=" + UI.showSys();
    return UI.api(path).then(function (body) {
      var name = supervisorId || host;
      document.title = "pynimbus: supervisor " + name;
      UI.fill("crumb-supervisor", name);
      UI.fill("supervisor-name", name);
      UI.fill("supervisors", supervisorTable(body));
      UI.fill("workers", workerTable(body));
    });
  }

  var reload = UI.loader(load);
  UI.controls(reload, false);
  reload();
})();
