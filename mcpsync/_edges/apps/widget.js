// mcpsync's MCP App host in a notebook cell (anywidget). The view's HTML goes in a sandboxed iframe
// (srcdoc, with its Content-Security-Policy first in <head>; sandbox="allow-scripts": an opaque origin,
// no top navigation, no popups). Messages are relayed between the iframe and the kernel's AppBridge:
// only those whose source is this iframe's window are taken, and answers are posted to it alone.
// A link the kernel approved is shown to the person, who opens it in a new tab (noopener, noreferrer)
// or dismisses it, one at a time; ui/message texts are shown under
// the view (.mcpsync-app-message). When the view is removed, it is sent ui/resource-teardown.
// A view that navigates its own frame elsewhere is cut off: a page it loaded is not the view the kernel
// answers, and hears nothing more of it. The host's guard script, the view's first (app_view.py), says
// "pagehide" as the view's document goes, before the next page can speak, however early, stopped or
// stalled the navigation; a second load of the iframe cuts it off too.
// Each render is a view of its own (a cell shown twice, a page reloaded): its messages carry its id,
// and what the kernel sends for one view (answers, the tool's input and result) reaches that one alone.

const MAX_MESSAGE_CHARS = 4000000;
// Milliseconds each message of the view waits before it goes to the kernel: a page the view's frame
// navigated to may speak before the old document's "pagehide" notice arrives (they come from two
// processes, in no fixed order); a message held this long is dropped if the notice comes meanwhile.
const HOLD_MS = 50;

let renders = 0;

function render({ model, el }) {
  renders += 1;
  // Unguessable: a view's guard says it (below), so that a notice cuts off its own frame alone.
  const random = window.crypto && window.crypto.randomUUID ? window.crypto.randomUUID() : String(Math.random()).slice(2);
  const viewId = renders + "-" + random;
  const root = document.createElement("div");
  root.className = "mcpsync-app";
  const frame = document.createElement("iframe");
  frame.className = "mcpsync-app-frame";
  frame.setAttribute("sandbox", model.get("sandbox") || "allow-scripts");
  frame.setAttribute("referrerpolicy", "no-referrer");
  const allow = model.get("allow");
  if (allow) {
    frame.setAttribute("allow", allow);
  }
  frame.setAttribute("title", "MCP App: " + model.get("tool_name"));
  frame.style.width = "100%";
  frame.style.height = model.get("height") + "px";
  frame.style.border = model.get("prefers_border") ? "1px solid #ccc" : "none";
  frame.srcdoc = String(model.get("srcdoc")).replace("__MCPSYNC_VIEW__", viewId); // the guard's mark, first
  const messages = document.createElement("div");
  messages.className = "mcpsync-app-messages";
  const notice = document.createElement("div");
  notice.className = "mcpsync-app-notice";
  root.appendChild(frame);
  root.appendChild(notice);
  root.appendChild(messages);
  let loads = 0;
  let cut = false;
  function cutOff() {
    if (!cut) {
      cut = true;
      notice.textContent = "The view left its page: it is no longer connected to the kernel.";
    }
  }
  function loaded() {
    loads += 1;
    if (loads > 1) {
      cutOff();
    }
  }
  frame.addEventListener("load", loaded);
  el.appendChild(root);

  function showMessages() {
    messages.replaceChildren();
    for (const text of model.get("messages") || []) {
      const item = document.createElement("div");
      item.className = "mcpsync-app-message";
      item.textContent = text;
      messages.appendChild(item);
    }
  }
  showMessages();

  function toView(message) {
    if (!cut && frame.contentWindow) {
      frame.contentWindow.postMessage(message, "*");
    }
  }

  function fromView(event) {
    if (event.data && event.data.mcpsync === "pagehide" && event.data.view === viewId) {
      // The host's guard script (this view's first): its document is going, and whatever page comes
      // next in its frame is not the view. Cut off now, before that page can post a word. By the time
      // the notice is handled its window may be gone (the source is null): the id says whose it is.
      cutOff();
      return;
    }
    if (cut || event.source !== frame.contentWindow || frame.contentWindow === null) {
      return;
    }
    let text;
    try {
      text = JSON.stringify(event.data);
    } catch (error) {
      return;
    }
    if (typeof text !== "string" || text.length > MAX_MESSAGE_CHARS) {
      return;
    }
    setTimeout(() => {
      if (!cut) {
        model.send({ type: "from-view", view: viewId, message: text });
      }
    }, HOLD_MS);
  }

  function fromKernel(content) {
    if (!content || typeof content !== "object") {
      return;
    }
    if (content.type === "to-view") {
      if (content.view === undefined || content.view === viewId) {
        toView(content.message);
      }
    } else if (content.type === "open-link" && (content.view === undefined || content.view === viewId)) {
      offerLink(String(content.url || ""));
    }
  }

  // A link the view asked for is shown to the person, who opens it (a new tab: noopener, noreferrer)
  // or not; one at a time (the kernel refuses the view another until this one is answered).
  let link = null;
  function answerLink(open) {
    if (link === null) {
      return;
    }
    if (open && /^https?:\/\//i.test(link.url)) {
      window.open(link.url, "_blank", "noopener,noreferrer");
    }
    link.box.remove();
    link = null;
    model.send({ type: "link-answered", view: viewId });
  }
  function offerLink(url) {
    answerLink(false);
    const box = document.createElement("div");
    box.className = "mcpsync-app-link";
    const text = document.createElement("span");
    text.textContent = "The view asks to open " + url + " ";
    const open = document.createElement("button");
    open.className = "mcpsync-app-link-open";
    open.textContent = "Open";
    open.addEventListener("click", () => answerLink(true));
    const dismiss = document.createElement("button");
    dismiss.className = "mcpsync-app-link-dismiss";
    dismiss.textContent = "Dismiss";
    dismiss.addEventListener("click", () => answerLink(false));
    box.append(text, open, dismiss);
    root.insertBefore(box, messages);
    link = { url, box };
  }

  function resize() {
    frame.style.height = model.get("height") + "px";
  }

  window.addEventListener("message", fromView);
  model.on("msg:custom", fromKernel);
  model.on("change:height", resize);
  model.on("change:messages", showMessages);

  return () => {
    answerLink(false);
    toView({ jsonrpc: "2.0", id: "mcpsync-teardown", method: "ui/resource-teardown", params: {} });
    window.removeEventListener("message", fromView);
    frame.removeEventListener("load", loaded);
    model.off("msg:custom", fromKernel);
    model.off("change:height", resize);
    model.off("change:messages", showMessages);
  };
}

export default { render };
