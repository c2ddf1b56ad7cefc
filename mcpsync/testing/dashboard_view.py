"""The test server's MCP App view (``ui://dashboard/view.html``): plain JavaScript, no dependency, that
speaks the MCP Apps dialect directly and exercises every message, so that a host can be tested with it.

On load it sends ``ui/initialize``, shows the host context (``#host-context``), sends
``ui/notifications/initialized``, logs ``notifications/message`` and reports its size
(``ui/notifications/size-changed``, again on every change). It shows the tool input (``#input``) and
result (``#result``) the host pushes, answers ``ping`` and ``ui/resource-teardown``. Its buttons:

    #call              tools/call refresh_dashboard (app-only): the answer's text in #answer
    #call-model-only   tools/call dashboard_export (model-only): the host must refuse
    #read              resources/read of the view itself
    #message           ui/message (the host shows it to the user)
    #open-link         ui/open-link https://example.com/
    #context           ui/update-model-context
    #display-mode      ui/request-display-mode fullscreen
    #request-teardown  ui/notifications/request-teardown
    #fetch-other       fetch() of another origin (the CSP must stop it)
    #navigate-top      window.top.location = ... (the sandbox must stop it)
    #grow              more content: a size change

Each outcome is a line ``<button id>: <what happened>`` in ``#log`` (an ``<li>`` each), which a browser
test reads.
"""

from __future__ import annotations

from typing import Any

__all__ = ["DASHBOARD_HTML", "DASHBOARD_META", "DASHBOARD_URI", "dashboard_contents"]

#: The view's URI, named by the dashboard tools' ``_meta.ui.resourceUri``.
DASHBOARD_URI = "ui://dashboard/view.html"
#: The resource's ``_meta``: a CSP that lets it reach no one (an origin of no use, to show the policy),
#: no permissions, a border.
DASHBOARD_META: dict[str, Any] = {
    "ui": {
        "csp": {"connectDomains": ["https://api.dashboard.invalid"], "resourceDomains": []},
        "prefersBorder": True,
    }
}

DASHBOARD_HTML = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Dashboard</title>
<style>
  body { font: 14px sans-serif; margin: 8px; }
  pre { background: #f4f4f4; padding: 4px; margin: 4px 0; white-space: pre-wrap; }
  button { margin: 2px; }
  #log { font-family: monospace; font-size: 12px; }
</style>
</head>
<body>
<h3>Dashboard</h3>
<div>Host: <span id="host-context">(not initialized)</span></div>
<div>Input: <pre id="input">(none)</pre></div>
<div>Result: <pre id="result">(none)</pre></div>
<div>Answer: <pre id="answer">(none)</pre></div>
<div>
  <button id="call">Refresh</button>
  <button id="call-model-only">Export (model only)</button>
  <button id="read">Read view</button>
  <button id="message">Send message</button>
  <button id="open-link">Open link</button>
  <button id="context">Update context</button>
  <button id="display-mode">Fullscreen</button>
  <button id="request-teardown">Close</button>
  <button id="fetch-other">Fetch other origin</button>
  <button id="navigate-top">Navigate top</button>
  <button id="grow">Grow</button>
</div>
<div id="more"></div>
<ol id="log"></ol>
<script>
(function () {
  "use strict";
  var nextId = 1;
  var waiting = {};
  var host = window.parent;

  function log(line) {
    var item = document.createElement("li");
    item.textContent = line;
    document.getElementById("log").appendChild(item);
  }
  function show(id, value) {
    document.getElementById(id).textContent = typeof value === "string" ? value : JSON.stringify(value);
  }
  function send(message) { host.postMessage(message, "*"); }
  function notify(method, params) { send({ jsonrpc: "2.0", method: method, params: params || {} }); }
  function request(method, params) {
    var id = nextId++;
    return new Promise(function (resolve, reject) {
      waiting[id] = { resolve: resolve, reject: reject };
      send({ jsonrpc: "2.0", id: id, method: method, params: params || {} });
    });
  }
  function textOf(result) {
    var parts = [];
    (result && result.content || []).forEach(function (block) {
      if (block.type === "text") { parts.push(block.text); }
    });
    return parts.join("\\n");
  }
  function outcome(name, promise) {
    promise.then(function (result) { log(name + ": ok " + JSON.stringify(result)); return result; },
                 function (error) { log(name + ": refused " + (error && error.message || error)); });
    return promise;
  }

  window.addEventListener("message", function (event) {
    if (event.source !== host) { return; }
    var message = event.data;
    if (!message || message.jsonrpc !== "2.0") { return; }
    if (message.id !== undefined && message.method === undefined) {
      var pending = waiting[message.id];
      delete waiting[message.id];
      if (!pending) { return; }
      if (message.error) { pending.reject(message.error); } else { pending.resolve(message.result); }
      return;
    }
    var params = message.params || {};
    if (message.method === "ui/notifications/tool-input") {
      show("input", params.arguments || {});
      log("tool-input: " + JSON.stringify(params.arguments || {}));
    } else if (message.method === "ui/notifications/tool-input-partial") {
      log("tool-input-partial");
    } else if (message.method === "ui/notifications/tool-result") {
      show("result", textOf(params) + (params.structuredContent ? " " + JSON.stringify(params.structuredContent) : ""));
      log("tool-result: " + textOf(params));
    } else if (message.method === "ui/notifications/tool-cancelled") {
      log("tool-cancelled: " + (params.reason || ""));
    } else if (message.method === "ui/notifications/host-context-changed") {
      log("host-context-changed: " + JSON.stringify(params));
    } else if (message.method === "ui/resource-teardown") {
      log("resource-teardown");
      send({ jsonrpc: "2.0", id: message.id, result: {} });
    } else if (message.method === "ping") {
      send({ jsonrpc: "2.0", id: message.id, result: {} });
    } else if (message.id !== undefined) {
      send({ jsonrpc: "2.0", id: message.id, error: { code: -32601, message: "Method not found" } });
    }
  });

  var lastSize = "";
  function reportSize() {
    var width = Math.ceil(document.documentElement.scrollWidth);
    var height = Math.ceil(document.documentElement.scrollHeight);
    var size = width + "x" + height;
    if (size === lastSize) { return; }
    lastSize = size;
    notify("ui/notifications/size-changed", { width: width, height: height });
  }

  function on(id, action) {
    document.getElementById(id).addEventListener("click", function () { action(id); });
  }
  on("call", function (name) {
    outcome(name, request("tools/call", { name: "refresh_dashboard", arguments: {} })).then(function (result) {
      show("answer", textOf(result));
    }, function () {});
  });
  on("call-model-only", function (name) {
    outcome(name, request("tools/call", { name: "dashboard_export", arguments: {} }));
  });
  on("read", function (name) {
    request("resources/read", { uri: "ui://dashboard/view.html" }).then(function (result) {
      var first = result.contents && result.contents[0];
      log(name + ": ok " + ((first && first.text) || "").length + " characters");
    }, function (error) { log(name + ": refused " + (error && error.message || error)); });
  });
  on("message", function (name) {
    var content = [{ type: "text", text: "Hello from the dashboard" }];
    outcome(name, request("ui/message", { role: "user", content: content }));
  });
  on("open-link", function (name) {
    outcome(name, request("ui/open-link", { url: "https://example.com/" }));
  });
  on("context", function (name) {
    outcome(name, request("ui/update-model-context", { content: [{ type: "text", text: "the dashboard is open" }] }));
  });
  on("display-mode", function (name) {
    outcome(name, request("ui/request-display-mode", { mode: "fullscreen" }));
  });
  on("request-teardown", function (name) {
    notify("ui/notifications/request-teardown", {});
    log(name + ": sent");
  });
  on("fetch-other", function (name) {
    try {
      fetch("https://example.com/").then(function () { log(name + ": reached another origin"); },
                                        function (error) { log(name + ": blocked " + error); });
    } catch (error) {
      log(name + ": blocked " + error);
    }
  });
  on("navigate-top", function (name) {
    try {
      window.top.location = "https://example.com/";
      log(name + ": no error raised");
    } catch (error) {
      log(name + ": blocked " + error);
    }
  });
  on("grow", function (name) {
    var block = document.createElement("div");
    block.style.height = "120px";
    block.textContent = "more";
    document.getElementById("more").appendChild(block);
    log(name + ": grown");
  });

  request("ui/initialize", {
    appInfo: { name: "mcpsync-test-dashboard", version: "1.0.0" },
    appCapabilities: { availableDisplayModes: ["inline"] },
    protocolVersion: "2026-01-26"
  }).then(function (result) {
    var hostName = (result.hostInfo && result.hostInfo.name) || "?";
    show("host-context", hostName + " " + JSON.stringify(result.hostContext || {}));
    log("initialize: ok " + result.protocolVersion);
    notify("ui/notifications/initialized", {});
    notify("notifications/message", { level: "info", logger: "dashboard", data: "dashboard ready" });
    reportSize();
    if (window.ResizeObserver) { new ResizeObserver(reportSize).observe(document.documentElement); }
  }, function (error) { log("initialize: refused " + (error && error.message || error)); });
})();
</script>
</body>
</html>
"""


def dashboard_contents() -> dict[str, Any]:
    """The ``resources/read`` contents of the view: its HTML with the MCP App MIME type and ``_meta``."""
    return {
        "uri": DASHBOARD_URI,
        "mimeType": "text/html;profile=mcp-app",
        "text": DASHBOARD_HTML,
        "_meta": DASHBOARD_META,
    }
