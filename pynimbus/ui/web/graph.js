/* The topology graph: spouts and bolts as boxes, streams as arrows, drawn as SVG in layers
 * from left (the spouts) to right.  Our own small layout: a node's layer is the longest path
 * to it from a node nothing feeds (cycles are cut after as many steps as there are nodes),
 * and within a layer nodes are ordered by where their inputs sit. */
"use strict";

var Graph = (function () {
  var SVG = "http://www.w3.org/2000/svg";
  var NODE_W = 170, NODE_H = 46, COL_W = 290, ROW_H = 76, PAD = 20;

  function svg(tag, attrs, text) {
    var node = document.createElementNS(SVG, tag);
    Object.keys(attrs || {}).forEach(function (name) {
      if (attrs[name] !== undefined && attrs[name] !== null) node.setAttribute(name, attrs[name]);
    });
    if (text !== undefined) node.textContent = text;
    return node;
  }

  /* {id: layer} by longest path from the nodes without inputs. */
  function layerOf(nodes, edges) {
    var layer = {};
    nodes.forEach(function (n) { layer[n.id] = 0; });
    for (var round = 0; round < nodes.length; round++) {
      var changed = false;
      edges.forEach(function (e) {
        if (e.from === e.to) return;
        var next = Math.min(layer[e.from] + 1, nodes.length - 1);
        if (next > layer[e.to]) { layer[e.to] = next; changed = true; }
      });
      if (!changed) break;
    }
    return layer;
  }

  /* [[node, ...] per layer], each ordered by the mean row of its inputs, then by id. */
  function columns(nodes, edges, layer) {
    var cols = [];
    nodes.forEach(function (n) { (cols[layer[n.id]] = cols[layer[n.id]] || []).push(n); });
    cols = cols.filter(Boolean);
    var row = {};
    cols.forEach(function (col) {
      col.forEach(function (n) {
        var rows = edges.filter(function (e) { return e.to === n.id && e.from in row; })
          .map(function (e) { return row[e.from]; });
        n.weight = rows.length ? rows.reduce(function (a, b) { return a + b; }) / rows.length
          : Infinity;
      });
      col.sort(function (a, b) {
        return a.weight - b.weight || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
      });
      col.forEach(function (n, i) { row[n.id] = i; });
    });
    return cols;
  }

  /* Edges between the same two nodes merged into one, listing their streams. */
  function mergeEdges(edges) {
    var merged = {};
    edges.forEach(function (e) {
      var key = JSON.stringify([e.from, e.to]);
      var m = merged[key] = merged[key] || {from: e.from, to: e.to, streams: []};
      m.streams.push(e.grouping ? e.stream + " (" + e.grouping + ")" : e.stream);
    });
    return Object.keys(merged).map(function (k) { return merged[k]; });
  }

  function capacityClass(node) {
    var capacity = Number(node.capacity);
    if (node.type !== "bolt" || !(capacity >= 0.5)) return "";
    return capacity >= 0.8 ? " busy" : " warm";
  }

  /* Draw `nodes` ([{id, type, link, caption, capacity}]) and `edges` ([{from, to, stream,
   * grouping}]) as an SVG element; edges from or to unknown nodes are left out. */
  function draw(nodes, edges) {
    var known = {};
    nodes.forEach(function (n) { known[n.id] = n; });
    edges = edges.filter(function (e) { return e.from in known && e.to in known; });
    var layer = layerOf(nodes, edges);
    var cols = columns(nodes, edges, layer);
    var tallest = Math.max.apply(null, cols.map(function (c) { return c.length; }).concat([1]));
    var width = PAD * 2 + (cols.length - 1) * COL_W + NODE_W;
    var height = PAD * 2 + (tallest - 1) * ROW_H + NODE_H + 30;
    var at = {};
    cols.forEach(function (col, c) {
      var top = PAD + (tallest - col.length) * ROW_H / 2;
      col.forEach(function (n, r) { at[n.id] = {x: PAD + c * COL_W, y: top + r * ROW_H}; });
    });
    var root = svg("svg", {id: "topology-graph-svg", width: width, height: height,
                           viewBox: "0 0 " + width + " " + height, role: "img",
                           "aria-label": "Topology graph"});
    var defs = svg("defs");
    var marker = svg("marker", {id: "arrow", viewBox: "0 0 10 10", refX: 10, refY: 5,
                                markerWidth: 8, markerHeight: 8, orient: "auto-start-reverse"});
    marker.appendChild(svg("path", {d: "M 0 0 L 10 5 L 0 10 z", class: "arrow-head"}));
    defs.appendChild(marker);
    root.appendChild(defs);
    mergeEdges(edges).forEach(function (e) { root.appendChild(edge(e, at)); });
    nodes.forEach(function (n) { root.appendChild(box(n, at[n.id])); });
    return root;
  }

  function edge(e, at) {
    var a = at[e.from], b = at[e.to], d;
    var label = e.streams.join(", ");
    var group = svg("g", {class: "graph-edge", "data-from": e.from, "data-to": e.to});
    if (e.from === e.to) {  // a bolt feeding itself: a loop under its box
      var x = a.x + NODE_W / 2, y = a.y + NODE_H;
      d = "M " + (x - 20) + " " + y + " C " + (x - 30) + " " + (y + 34) + ", " + (x + 30) +
        " " + (y + 34) + ", " + (x + 20) + " " + y;
    } else if (b.x > a.x) {
      var x1 = a.x + NODE_W, y1 = a.y + NODE_H / 2, x2 = b.x, y2 = b.y + NODE_H / 2;
      var bend = (x2 - x1) / 2;
      d = "M " + x1 + " " + y1 + " C " + (x1 + bend) + " " + y1 + ", " + (x2 - bend) + " " +
        y2 + ", " + x2 + " " + y2;
    } else {  // back to an earlier layer: around below
      var sx = a.x + NODE_W / 2, sy = a.y + NODE_H, tx = b.x + NODE_W / 2, ty = b.y + NODE_H;
      var low = Math.max(sy, ty) + 28;
      d = "M " + sx + " " + sy + " C " + sx + " " + low + ", " + tx + " " + low + ", " + tx +
        " " + ty;
    }
    group.appendChild(svg("title", null, e.from + " → " + e.to + ": " + label));
    group.appendChild(svg("path", {d: d, class: "edge-line", "marker-end": "url(#arrow)"}));
    if (e.from !== e.to && b.x > a.x) {
      group.appendChild(svg("text", {x: (a.x + NODE_W + b.x) / 2,
                                     y: (a.y + b.y + NODE_H) / 2 - 6,
                                     class: "edge-label", "text-anchor": "middle"},
                            shorten(label, 28)));
    }
    return group;
  }

  function box(n, p) {
    var anchor = svg("a", {href: n.link, class: "graph-node " + n.type + capacityClass(n),
                           "data-component": n.id});
    anchor.appendChild(svg("title", null, n.type + " " + n.id +
                           (n.caption ? "\n" + n.caption : "")));
    anchor.appendChild(n.type === "spout"
      ? svg("rect", {x: p.x, y: p.y, width: NODE_W, height: NODE_H, rx: 22, ry: 22})
      : svg("rect", {x: p.x, y: p.y, width: NODE_W, height: NODE_H, rx: 4, ry: 4}));
    anchor.appendChild(svg("text", {x: p.x + NODE_W / 2, y: p.y + 19, class: "node-name",
                                    "text-anchor": "middle"}, shorten(n.id, 22)));
    anchor.appendChild(svg("text", {x: p.x + NODE_W / 2, y: p.y + 35, class: "node-caption",
                                    "text-anchor": "middle"}, n.caption || n.type));
    return anchor;
  }

  function shorten(text, most) {
    text = String(text);
    return text.length <= most ? text : text.slice(0, most - 1) + "…";
  }

  return {draw: draw, layerOf: layerOf};
})();
