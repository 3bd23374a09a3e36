/* The cluster page (/): cluster, Nimbus, topology and supervisor summaries, and Nimbus's
 * configuration. */
"use strict";

(function () {
  var el = UI.el, fmt = UI.fmt;

  function clusterSummary(c) {
    return UI.facts("cluster-facts", [
      ["Storm version", c.stormVersion], ["Supervisors", fmt(c.supervisors)],
      ["Topologies", fmt(c.topologies), "topologies"],
      ["Slots used / free / total", fmt(c.slotsUsed) + " / " + fmt(c.slotsFree) + " / " +
       fmt(c.slotsTotal)],
      ["Executors", fmt(c.executorsTotal)], ["Tasks", fmt(c.tasksTotal)],
      ["Memory assigned", fmt(c.memAssignedPercentUtil) + " %"]]);
  }

  function nimbusTable(body) {
    return UI.table("nimbus-table", [
      {key: "host", title: "Host"}, UI.PORT,
      {key: "status", title: "Status"}, {key: "version", title: "Version"},
      {key: "nimbusUpTime", title: "Uptime"},
      {key: "nimbusLogLink", title: "Log", value: function (n) {
        return UI.logLink(n.nimbusLogLink);
      }}], body.nimbuses, "No Nimbus answers.");
  }

  function topologyTable(body) {
    return UI.table("topology-table", [
      {key: "name", title: "Name", value: function (t) {
        return el("a", {href: UI.topologyHref(t.id)}, t.name);
      }},
      {key: "id", title: "Id"}, {key: "owner", title: "Owner"},
      {key: "status", title: "Status", value: function (t) {
        return el("span", {class: "status status-" + String(t.status).toLowerCase()},
                  t.status);
      }},
      {key: "uptime", title: "Uptime"},
      {key: "workersTotal", title: "Workers", num: true},
      {key: "executorsTotal", title: "Executors", num: true},
      {key: "tasksTotal", title: "Tasks", num: true},
      {key: "schedulerInfo", title: "Scheduler info"}],
      body.topologies, "No topology is running.");
  }

  function supervisorTable(body) {
    return UI.table("supervisor-table", [
      {key: "host", title: "Host"},
      {key: "id", title: "Id", value: function (s) {
        return UI.el("a", {href: UI.supervisorHref(s.id)}, s.id);
      }},
      {key: "uptime", title: "Uptime"},
      {key: "slotsTotal", title: "Slots", num: true},
      {key: "slotsUsed", title: "Used slots", num: true},
      {key: "usedMem", title: "Used memory (MB)", num: true},
      {key: "version", title: "Version"},
      {key: "logLink", title: "Log", value: function (s) { return UI.logLink(s.logLink); }}],
      body.supervisors, "No supervisor has registered.");
  }

  function load() {
    return Promise.all([
      UI.api("cluster/summary"), UI.api("nimbus/summary"), UI.api("topology/summary"),
      UI.api("supervisor/summary")
    ]).then(function (answers) {
      UI.fill("cluster-summary", clusterSummary(answers[0]));
      UI.fill("nimbus-summary", nimbusTable(answers[1]));
      UI.fill("topology-summary", topologyTable(answers[2]));
      UI.fill("supervisor-summary", supervisorTable(answers[3]));
    });
  }

  function loadConfiguration() {
    return UI.api("cluster/configuration").then(function (conf) {
      UI.fill("nimbus-configuration-table", UI.configuration(conf));
    });
  }

  var reload = UI.loader(load);
  UI.controls(reload, false);
  // read when first opened: Nimbus's configuration does not change while it runs
  var configurationLoaded = false;
  document.getElementById("nimbus-configuration").addEventListener("toggle", function (e) {
    if (!e.target.open || configurationLoaded) return;
    loadConfiguration().then(function () { configurationLoaded = true; }, UI.showError);
  });
  reload();
})();
