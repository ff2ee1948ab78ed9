// cloudg server decisions: the anywidget front end of
// cloudg_nb.notebook.server_decisions.ServerDecisions, a part of the approval panel.
//
// A click on the panel's Approve / Deny button is taken here, in the browser, before the
// button's own (kernel) handler: the decision is POSTed to the Jupyter server's REST API
// ({baseUrl}{api_path}/{id}, the _xsrf cookie as X-XSRFToken, the page's login), so a busy
// kernel never delays it. Where that cannot decide (no Jupyter page config, or this server
// does not know the call: 404, 403, 503, no answer), the decision goes to the kernel
// instead (a message the panel handles as a click). The model holds `api_path` (the route,
// from cloudg's wire vocabulary) and `enabled` (false in a local workspace: the kernel
// decides); the outcome is shown under the panel, in this view only.

const BUTTONS = "button.cloudg-approve, button.cloudg-deny";

function pageConfig() {
  const element = document.getElementById("jupyter-config-data");
  if (!element) return null;
  try {
    return JSON.parse(element.textContent || "{}");
  } catch (error) {
    return null;
  }
}

function xsrfToken() {
  const found = document.cookie.match(/(?:^|;\s*)_xsrf=([^;]*)/);
  return found ? decodeURIComponent(found[1]) : null;
}

function joinUrl(base, path) {
  return (base.endsWith("/") ? base : base + "/") + path.replace(/^\/+/, "");
}

/** POST one decision; resolves to {status, body} (status 0: no answer). */
async function postDecision(config, apiPath, id, decision, reason) {
  const headers = { "Content-Type": "application/json" };
  const xsrf = xsrfToken();
  if (xsrf) headers["X-XSRFToken"] = xsrf;
  if (config.token) headers["Authorization"] = "token " + config.token;
  const body = { decision };
  if (reason) body.reason = reason.slice(0, 300);
  let response;
  try {
    response = await fetch(joinUrl(config.baseUrl || "/", apiPath + "/" + encodeURIComponent(id)), {
      method: "POST",
      headers,
      body: JSON.stringify(body),
      credentials: "same-origin",
      cache: "no-store",
    });
  } catch (error) {
    return { status: 0, body: null };
  }
  let parsed = null;
  try {
    parsed = await response.json();
  } catch (error) {
    parsed = null;
  }
  return { status: response.status, body: parsed };
}

/** What the clicked button decides: the call's id, the decision, the reason typed. */
function clicked(button) {
  const row = button.closest(".cloudg-approval-row");
  const shown = row && row.querySelector("[data-approval]");
  if (!shown) return null;
  const input = row.querySelector("input");
  return {
    row,
    input,
    id: shown.getAttribute("data-approval"),
    decision: button.classList.contains("cloudg-approve") ? "approve" : "deny",
    reason: input ? input.value.trim() : "",
  };
}

function setDisabled(row, disabled) {
  for (const button of row.querySelectorAll(BUTTONS)) button.disabled = disabled;
}

function clearReason(input) {
  if (!input || !input.value) return;
  input.value = "";
  // The text widget syncs its model from this event (so the kernel's copy is cleared too).
  input.dispatchEvent(new Event("input", { bubbles: true }));
}

function render({ model, el }) {
  el.classList.add("cloudg-server-decisions");
  const note = document.createElement("div");
  note.className = "cloudg-decision-note";
  note.style.fontSize = "85%";
  el.appendChild(note);
  const say = (text) => {
    note.textContent = text;
  };

  const toKernel = (what, why) => {
    model.send({ event: "decide", id: what.id, decision: what.decision, reason: what.reason });
    say(`${what.decision === "approve" ? "approving" : "denying"} through the kernel (${why})`);
  };

  const onClick = async (event) => {
    const button = event.target instanceof Element ? event.target.closest(BUTTONS) : null;
    const panel = button && button.closest(".cloudg-approvals");
    if (!panel || !panel.contains(el) || !model.get("enabled")) return;
    const what = clicked(button);
    const config = pageConfig();
    if (!what || !config) return; // the button's own handler: the kernel decides
    event.preventDefault();
    event.stopImmediatePropagation();
    setDisabled(what.row, true);
    clearReason(what.input);
    const answer = await postDecision(config, model.get("api_path"), what.id, what.decision,
                                      what.reason);
    const message = answer.body && typeof answer.body.message === "string" ? answer.body.message : "";
    if (answer.status === 200) {
      const state = answer.body && answer.body.approval ? answer.body.approval.state : what.decision;
      say(`${what.id}: ${state} (by the Jupyter server, at once)`);
      model.send({ event: "decided", id: what.id, state });
    } else if (answer.status === 409 || answer.status === 400) {
      say(`${what.id}: ${message || "not decided"}`);
    } else {
      setDisabled(what.row, false);
      toKernel(what, answer.status ? `the server answered ${answer.status}` : "no answer");
    }
  };

  // Capture: before the button's own handler, which would queue the click for the kernel.
  document.addEventListener("click", onClick, true);
  return () => document.removeEventListener("click", onClick, true);
}

export default { render };
