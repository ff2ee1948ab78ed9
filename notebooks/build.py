"""Write the example notebooks (``NN-*.ipynb`` beside this file) from the cell sources below.

The notebooks are committed without outputs; edit the cells here and run
``python notebooks/build.py`` (``--check`` exits 1 when a committed notebook differs). CI
executes every notebook (tests/notebooks/test_notebooks_execute.py).
"""

from __future__ import annotations

import sys
from pathlib import Path

import nbformat

HERE = Path(__file__).resolve().parent

#: A cell: ("md", markdown) or ("py", code); ("py!", code) shows a cloudg error on purpose
#: (tagged, so CI accepts that error display there and nowhere else).
Cell = tuple[str, str]
EXPECTS_ERROR_TAG = "cloudg-error-expected"

QUICKSTART: list[Cell] = [
    ("md", """\
# cloudg-nb quickstart: a cloud estate at a glance

This notebook tours the **demo estate**: 60 assets across AWS, Azure and GCP with their
network, identity and dependency edges and 15 security findings. No cloud account and no
credentials are needed; run it top to bottom (*Run > Run All Cells*).

You will see, in order: what the estate holds, what the internet can reach, the attack paths
to the sensitive data drawn as a picture and as an interactive graph, the findings by
severity, which assets to fix first and why, a long graph computation with its progress bar,
an AI assistant asking for your approval, and a table that keeps itself up to date.

**Where the data lives.** Started from JupyterLab with the cloudg extension (`make demo`), the
notebook talks to the Jupyter server's *shared workspace*: the same one your AI assistant
sees through the server's MCP endpoint. Anywhere else (nbclient, papermill, plain IPython) it
starts an in-process workspace with the demo estate. The first command says which."""),
    ("md", """\
## 1. Connect

`%load_ext cloudg_nb` adds the `%cloudg` magic. Its first use picks the mode (remote: the
Jupyter server's workspace; local: in-process) and prints one line saying which and why.
`%cloudg status` then shows the workspace: the loaded datasets and the active one."""),
    ("py", """\
%load_ext cloudg_nb
%cloudg status"""),
    ("md", """\
## 2. The estate at a glance

`dataset_summary` is the first question to ask of any estate: how many assets of which kind,
in which clouds and accounts, and how many findings of each severity. `-o summary` keeps the
result in a Python variable."""),
    ("py", "%cloudg call dataset_summary -o summary"),
    ("md", """\
The same numbers as a table: assets per cloud provider and asset type, largest first."""),
    ("py", """\
import pandas as pd

by_provider = pd.Series(summary["providers"], name="assets").rename_axis("provider")
by_type = pd.Series(summary["asset_types"], name="assets").rename_axis("asset type")
by_provider.to_frame().T"""),
    ("py", "by_type.head(10).to_frame().T"),
    ("md", """\
## 3. What the internet can reach

`internet_exposure` lists the assets an attacker can reach directly: through which rule
(`via`), on which ports, and whether a WAF stands in front. Sensitive ports (SSH, RDP,
databases, Kibana ...) open to the world are the usual first foothold."""),
    ("py", "%cloudg call internet_exposure -o exposed"),
    ("py", """\
exposed[["name", "type", "provider", "via", "open_ports", "sensitive_ports", "waf_protected"]]"""),
    ("md", """\
## 4. Attack paths to the crown jewels

From here on we use the Python API: `default_client()` is the same connection the magics use,
and `client.call(tool, **arguments)` returns a `Result` (`.data`, `.df`, `.caption`).

`attack_paths` walks the graph from the internet to sensitive data stores (databases,
buckets, secrets) and returns the shortest paths. `plot_attack_paths` draws them: nodes are
filled by asset category and ringed by the worst open finding on the asset, entry points
(the first asset after the internet) have a dashed ring, sensitive targets are in bold."""),
    ("py", """\
from cloudg_nb.notebook import default_client
from cloudg_nb.notebook.plots import plot_attack_paths, plot_findings_by_severity

client = default_client()
paths = client.call("attack_paths")
findings = client.frame("list_findings")
plot_attack_paths(paths, findings)"""),
    ("md", """\
### The same paths, to explore

`graph(...)` draws them as an interactive graph: drag, zoom, and click a node for its details
and its findings. (`%cloudg call attack_paths` shows this graph by itself.)"""),
    ("py", """\
from cloudg_nb.notebook.graph_view import graph

graph(paths, findings, widget=True)"""),
    ("md", """\
### The paths step by step

Where each path enters and which data store it ends at."""),
    ("py", """\
pd.DataFrame(
    {
        "entry": p["entry"]["name"],
        "target": p["nodes"][-1]["name"],
        "target type": p["nodes"][-1]["type"],
        "hops": p["hops"],
        "route": " → ".join(node["name"] for node in p["nodes"]),
    }
    for p in paths.data["paths"]
)"""),
    ("md", """\
## 5. Findings by severity

How many open findings of each severity (suppressed ones are not counted)."""),
    ("py", 'plot_findings_by_severity(client.call("findings_summary"))'),
    ("md", """\
## 6. What to fix first, and why

`top_risks` ranks the assets with open findings by a score that shows its parts:

`score = max_risk × exposure_factor × blast_factor × volume_factor`

* `max_risk`: the risk of the asset's worst open finding (severity and CVSS);
* `exposure_factor`: 1.5 when the internet reaches the asset within two hops, else 1;
* `blast_factor`: grows with the number of assets that depend on it (up to 2);
* `volume_factor`: grows with the number of open findings on it (up to 1.5)."""),
    ("py", """\
risks = client.frame("top_risks")
risks[["rank", "name", "type", "score", "max_risk", "exposure_factor", "blast_factor",
       "volume_factor", "top_finding_title"]].head(8)"""),
    ("md", """\
## 7. A long graph computation, with its progress bar

Tools report their progress and the notebook shows it as a bar. Here we load a generated
estate of 20,000 assets (as a second dataset, without making it the active one) and rank its
assets by betweenness centrality: the hubs that the most paths pass through, where a
compromise spreads furthest. We unload it afterwards so the workspace stays small."""),
    ("py", """\
client.call("sample_estate", name="scaled", n=20_000, dataset_name="scaled-20k",
            activate=False, replace=True)
central = client.call("centrality_top", metric="betweenness", top=10, dataset="scaled-20k")
client.call("unload_dataset", name="scaled-20k")
central.df[["rank", "name", "type", "provider", "score"]].astype({"score": "int64"})"""),
    ("md", """\
## 8. An assistant asks, you decide

An AI assistant connects to this server's MCP endpoint with **a credential of its own**
(`cloudg-nb config --client claude-code --jupyter` mints one; never give it the server's
token). Its calls show under its own name, and a call that changes *your* data, here
suppressing a finding, waits for **your approval**: in the approval panel below, in
JupyterLab's cloudg sidebar and as a notification.

A scripted assistant plays the part: it gets a credential minted by the server and asks to
suppress `f-006` (a LOW finding). The cell after the panel approves for you, so the notebook
runs unattended; with a real assistant you click *Approve* or *Deny*. (Without a Jupyter
server, in nbclient or plain IPython, no assistant can connect: these cells say so.)"""),
    ("py", """\
from cloudg_nb.jupyter_discovery import find_jupyter_endpoint
from cloudg_nb.notebook.scripted_assistant import ScriptedAssistant

if client.mode == "remote":
    assistant = ScriptedAssistant.mint(find_jupyter_endpoint(), "quickstart-assistant")
    asking = assistant.ask("suppress_findings", ids=["f-006"],
                           reason="accepted risk: the HSM team rotates this key")
    print(f"{assistant.principal}, with its own credential ({assistant.token_hint}…), "
          "asked to suppress f-006; the call waits for your decision.")
else:
    assistant = None
    print("No Jupyter server: this in-process workspace has no assistants. Open the notebook "
          "in JupyterLab (`make demo`) to see one ask for approval.")"""),
    ("py", """\
approvals = client.approval_panel() if assistant else None
approvals"""),
    ("md", """\
The analyst's side: the call waiting (who, which tool, what it will do), approved with a
reason the assistant is told. The panel above moves it to *recent*; the assistant's call,
which was waiting all along, now completes."""),
    ("py", """\
waiting = assistant.waiting_approval(client, asking) if assistant else None
if waiting is None and assistant:
    print("Nothing waits any more: a call waits for you for a while (the server's "
          "CloudGExtension.approval_timeout, 2 minutes by default), then it is refused. "
          "Run the cell with ScriptedAssistant.mint again to ask anew.")
elif waiting is not None:
    print(f"waiting for you: {waiting['principal']} · {waiting['summary']}")
    client.approve(waiting["id"], "fine for a LOW finding")
    answer = asking.result()
    if answer.is_error:
        print("the assistant's call was refused:", answer.content[0].text)
    else:
        done = answer.structured_content
        print(f"approved: the assistant's call is done ({', '.join(done['suppressed'])} "
              f"suppressed in dataset {done['dataset']!r})")"""),
    ("md", """\
The activity feed: every call to the shared workspace, yours and the assistant's, with who
made it, its outcome and the approval it waited for (never an argument's value)."""),
    ("py", """\
activity = client.activity_feed() if assistant else None
activity"""),
    ("md", """\
Tidy up: the workspace is shared, so put `f-006` back, and revoke the demo credential (its
token is refused from now on; `%cloudg assistants` lists the credentials)."""),
    ("py", """\
if assistant:
    client.call("unsuppress_findings", ids=["f-006"], progress=False)
    client.revoke_assistant(assistant.name)
    print(f"{assistant.principal}: credential revoked; f-006 is open again.")"""),
    ("md", """\
## 9. A table that keeps itself up to date

`client.live(...)` runs a query and re-runs it whenever the data behind it changes, whoever
changed it: you, a colleague's notebook, or an AI assistant connected to the same Jupyter
server. The table below lists the open HIGH and CRITICAL findings; suppress one (here, or
ask your assistant to) and it drops out of the table without running this cell again.
(`.columns` picks the columns shown; `.df` keeps them all.)
`02-with-an-ai-assistant.ipynb` shows it with an assistant at work."""),
    ("py", """\
open_findings = client.live("list_findings", severities=["CRITICAL", "HIGH"])
open_findings.columns = ["id", "severity", "risk_score", "title", "resource_name",
                         "resource_type", "source_tool"]
open_findings"""),
    ("md", """\
## Where next

* `%cloudg tools` lists every tool; `%cloudg describe TOOL` shows its arguments.
* `02-with-an-ai-assistant.ipynb`: connect Claude Code, Cursor, VS Code or Claude Desktop to
  this server and watch the notebook follow what the assistant does.
* `03-privacy-and-policy.ipynb`: what redaction and pseudonyms do to a result, and the audit
  trail.
* `04-bring-your-own-data.ipynb`: load Prowler output or your own tables."""),
]

ASSISTANT: list[Cell] = [
    ("md", """\
# Working with an AI assistant

Your assistant (Claude Code, Cursor, VS Code, Claude Desktop, Jupyter AI ...) and this notebook
share **one workspace**: the Jupyter server's cloudg extension serves it to the assistant over
MCP at `{server}/cloudg/mcp`. What the assistant loads or suppresses, the notebook sees at once.

The assistant never gets the Jupyter server's token. It gets a **credential of its own**,
minted by this server for it: its calls show under its name in the activity feed, and a call
that would change *your* data (suppress your findings, unload or replace your datasets) waits
until you approve it here. You can revoke the credential at any time.

A small MCP client inside this notebook stands in for the assistant, with a credential minted
for it, so the notebook runs without one. It needs the Jupyter server: open it in JupyterLab
started with the cloudg extension (`make demo`, or `jupyter lab` after installing cloudg-nb)."""),
    ("py", """\
%load_ext cloudg_nb
from cloudg_nb.notebook import default_client

client = default_client()
if client.mode != "remote":
    raise RuntimeError(
        "This notebook shows an assistant working beside you on the Jupyter server's "
        "workspace, so it needs that server: open it in JupyterLab started with the cloudg "
        "extension (make demo). Headless runs (nbclient, papermill) find no server and use an "
        "in-process workspace, which no assistant can reach.")"""),
    ("md", """\
## 1. Connect your assistant

One command per assistant: `cloudg-nb config --client NAME --jupyter` asks this server to mint
a credential for that assistant and prints (or, for Jupyter AI, writes) its configuration with
that credential in it. Run it in a terminal; each assistant gets a token of its own, which
`%cloudg assistants` lists (never the token itself) and `%cloudg assistants revoke NAME` ends."""),
    ("py", """\
from cloudg_nb.client_config import ALL_CLIENTS
from cloudg_nb.jupyter_discovery import find_jupyter_endpoint

endpoint = find_jupyter_endpoint()
print(f"MCP endpoint of this Jupyter server: {endpoint.url}\\n")
for name in ALL_CLIENTS:
    print(f"{name:15} cloudg-nb config --client {name} --jupyter")"""),
    ("md", """\
## 2. A credential for the stand-in assistant

The notebook mints the stand-in's credential the way that command does: one request to the
server's owner-only API (`POST cloudg/api/assistants`), made with *your* login. The token
comes back once; the notebook keeps it in a variable and never prints it."""),
    ("py", """\
import json
import urllib.request

STAND_IN = "notebook-stand-in"

request = urllib.request.Request(
    f"{endpoint.server_url}cloudg/api/assistants", method="POST",
    data=json.dumps({"name": STAND_IN, "client": "other"}).encode(),
    headers={"Authorization": f"token {endpoint.token}", "Content-Type": "application/json"})
with urllib.request.urlopen(request, timeout=30) as response:
    minted = json.load(response)
assistant_token = minted["token"]
print(f"Minted a credential for {minted['assistant']['principal']} "
      f"(token {minted['assistant']['token_hint']}, policy profile "
      f"{minted['assistant']['profile'] or 'the default'}).")
client.assistants()[["name", "principal", "profile", "token_hint"]]"""),
    ("md", """\
The stand-in is an ordinary MCP client (the `mcp` SDK) sending that token. It runs in a thread
of its own, so this notebook stays free while one of its calls waits for you."""),
    ("py", """\
import asyncio
from concurrent.futures import ThreadPoolExecutor

import httpx2
from mcp import Client as MCPClient
from mcp.client.streamable_http import streamable_http_client
from mcp_types import Implementation

_threads = ThreadPoolExecutor(max_workers=2, thread_name_prefix="assistant")


async def _assistant_call(tool, arguments):
    headers = {"Authorization": f"Bearer {assistant_token}"}
    async with httpx2.AsyncClient(headers=headers,
                                  timeout=httpx2.Timeout(30, read=300)) as http:
        transport = streamable_http_client(endpoint.url, http_client=http)
        info = Implementation(name=STAND_IN, version="1.0")
        async with MCPClient(transport, mode="legacy", client_info=info) as session:
            return await session.call_tool(tool, arguments)


def assistant_call(tool, **arguments):
    \"\"\"Start one MCP call as the stand-in assistant: a Future of its result.\"\"\"
    return _threads.submit(asyncio.run, _assistant_call(tool, arguments))"""),
    ("md", """\
## 3. What you watch: open findings, the approval panel, the activity feed

`client.live(...)` keeps a query's table current: it re-runs when anyone changes the data."""),
    ("py", """\
findings = client.live("list_findings")
findings.columns = ["id", "severity", "title", "resource_name", "source_tool"]
findings"""),
    ("md", """\
The approval panel lists the assistants' calls that wait for you, with what each would do,
and Approve / Deny buttons (in JupyterLab a click goes straight to the server, even while this
kernel is busy; the cloudg sidebar and a notification show them too)."""),
    ("py", "%cloudg approvals -o panel"),
    ("md", """\
The activity feed shows every call to the workspace as it happens: who made it (you, or which
assistant), the tool, the outcome, and whether it waited for an approval. Never a value."""),
    ("py", "%cloudg activity -o feed"),
    ("md", """\
## 4. The assistant triages

The stand-in lists the LOW and INFO findings (a read: it runs at once) and asks to suppress
all of them as accepted risk. Those findings are in *your* dataset, so that call waits in the
panel above."""),
    ("py", """\
low = assistant_call("list_findings", severities=["LOW", "INFO"]).result(timeout=60)
triaged = [item["id"] for item in low.structured_content["items"]]
print(f"The assistant found {len(triaged)} LOW/INFO findings: {', '.join(triaged)}.")
suppressing = assistant_call("suppress_findings", ids=triaged,
                             reason="accepted risk (triaged by the assistant)")"""),
    ("md", """\
Click **Approve** in the panel, or run the next cell: it finds the waiting call and approves it
through the same API (`client.approve(id, reason)`; `%cloudg approve ID` does it too)."""),
    ("py", """\
import time

version_before, rows_before = findings.version, len(findings.df)


def waiting_call_of(principal, seconds=60.0):
    \"\"\"The call of ``principal`` waiting for your approval (None once it was decided).\"\"\"
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and not suppressing.done():
        for call in client.approvals():
            if call["principal"] == principal:
                return call
        time.sleep(0.2)
    return None


waiting = waiting_call_of(minted["assistant"]["principal"])
if waiting is not None:
    print(f"Waiting: {waiting['tool']} from {waiting['principal']}.")
    decided = client.approve(waiting["id"], "fine: low risk")
    print("Approved here." if not decided.is_error else decided.error.message)
done = suppressing.result(timeout=120)
print("The assistant's call:", "refused" if done.is_error else
      f"suppressed {len(done.structured_content['suppressed'])} findings")"""),
    ("py", """\
for _ in range(200):  # the live table refreshes on its own, a moment after the change
    if findings.version != version_before:
        break
    time.sleep(0.05)
print(f"The live table went from version {version_before} ({rows_before} rows) to "
      f"version {findings.version} ({len(findings.df)} rows) without running its cell.")"""),
    ("md", """\
The activity shows each call under the name of whoever made it, and the approval the
suppression waited for:"""),
    ("py", """\
activity = client.activity()
by_assistants = activity[activity["assistant"]]
by_assistants[["time", "principal", "name", "outcome", "approval"]].fillna("—")"""),
    ("md", """\
## 5. What got worse: the drift report

The stand-in now loads the *drifted* sample, the demo estate a week later, as a dataset of its
own (no approval needed: it changes nothing of yours, and your active dataset stays `demo`).
`%cloudg diff BASE TARGET` then says what got worse first, then what improved: protections
lost, attack paths to crown jewels opened, new internet exposure, findings opened or closed."""),
    ("py", """\
loaded = assistant_call("sample_estate", name="drifted", dataset_name="drifted",
                        activate=False).result(timeout=120)
datasets = client.datasets()
print(f"The assistant loaded {loaded.structured_content['name']!r}; your active dataset is "
      f"still {datasets.loc[datasets['active'], 'name'].iat[0]!r}.")"""),
    ("py", "%cloudg diff demo drifted -o drift"),
    ("md", """\
The WAF in front of `web-alb` is gone, so the paths from the internet through `web-alb` to
the customer data are open again. The same report as data, e.g. for a ticket:"""),
    ("py", """\
import pandas as pd

opened = pd.DataFrame([{"crown jewel": p["crown_jewel"]["name"], "path": " → ".join(p["path"]),
                        "why": p["why"]} for p in drift["worse"]["attack_paths_opened"]])
with pd.option_context("display.max_colwidth", None):
    display(opened)"""),
    ("md", """\
**Since my last review.** Take a snapshot when you review (`%cloudg call snapshot_dataset
name=monday`); later `%cloudg diff` with no names compares the active dataset with its latest
snapshot."""),
    ("md", """\
## 6. Tidy up

The workspace is shared: put it back as it was, so the other notebooks (and your assistant)
start from the demo estate again, and revoke the stand-in's credential (its token stops
working at once)."""),
    ("py", """\
findings.close()
panel.close()
feed.close()
client.call("unsuppress_findings", ids=triaged, dataset="demo")
client.call("unload_dataset", name="drifted")
%cloudg assistants revoke notebook-stand-in
client.datasets()[["name", "version", "active"]]"""),
]

PRIVACY: list[Cell] = [
    ("md", """\
# Privacy and policy: what each caller may see

Every call, from an assistant or from this notebook, goes through one door: the policy
decides whether it may run (roles, capabilities, rate limits), then the privacy transforms
rewrite its result: secrets redacted, prompt injections in estate text fenced as untrusted,
identifiers replaced by stable pseudonyms. Every decision can be audited.

This notebook makes small in-process workspaces with different policies, so it shows the
same thing wherever it runs; the Jupyter server's own policy is set with
`--CloudGExtension.policy` (or `cloudg-nb lab --policy`)."""),
    ("md", """\
## 0. The key behind the pseudonyms

`strict` and `analyst-team` replace identifiers (account ids, ARNs, resource ids) by
**pseudonyms**: a keyed hash of the real value (HMAC-SHA256), shaped like the original. The
key decides the pseudonyms, so it decides how long they last:

* **with a key you keep** (`CLOUDG_MCP_VAULT_KEY` in the server's environment, or the
  policy's `vault.key_env`), an account id or ARN keeps its pseudonym across
  restarts, so the notes, tickets and assistant conversations that quote it keep
  pointing at the same asset;
* **without one**, the workspace makes up a random key when it starts, and every pseudonym
  changes at the next restart. A server started that way says so once in its log, because
  its operator did not choose it.

This notebook makes throwaway workspaces, so a key for this session only is what we want:
we choose one here (a random key, kept in this kernel's environment, never printed), and the
workspaces below use it. A key you already set is kept."""),
    ("py", """\
import os
import secrets

os.environ.setdefault("CLOUDG_MCP_VAULT_KEY", secrets.token_hex(32))
print("Pseudonym key chosen: pseudonyms stay the same until this kernel restarts.")"""),
    ("md", """\
## 1. One result under `open`, `standard` and `strict`

`cloudg_nb.local(policy=...)` starts an in-process workspace with the demo estate under a
policy. We ask each for two assets: `web-1`, whose user data holds a database password, and
`web-2`, whose `owner_note` tag (anyone could write it) tries a prompt injection."""),
    ("py", """\
import pandas as pd

import cloudg_nb

pd.set_option("display.max_colwidth", 120)
POLICIES = ("open", "standard", "strict")
clients = {policy: cloudg_nb.local(policy=policy) for policy in POLICIES}
web1 = {p: c.call("get_asset", ref="web-1", progress=False) for p, c in clients.items()}
web2 = {p: c.call("get_asset", ref="web-2", progress=False) for p, c in clients.items()}

pd.DataFrame({
    policy: {
        "account_id": web1[policy].data["account_id"],
        "arn": web1[policy].data["arn"],
        "web-1 user_data": web1[policy].data["metadata"].get("user_data"),
        "web-2 owner_note": web2[policy].data["tags"].get("owner_note"),
    }
    for policy in POLICIES
})"""),
    ("md", """\
What the transforms did, as each result reports it (`Result.transform_note`): under
`standard` the credential is redacted and the injection fenced; `strict` also replaces
account ids, ARNs and resource ids by pseudonyms. Passed back as arguments, pseudonyms
reach the tools as the real values, so an assistant can keep working with them."""),
    ("py", """\
for policy in POLICIES:
    print(f"{policy:>8}: {web1[policy].transform_note or 'nothing changed'}")"""),
    ("py", """\
strict = clients["strict"]
pseudonym = web1["strict"].data["arn"]
again = strict.call("get_asset", ref=pseudonym, progress=False)
print(f"get_asset(ref={pseudonym!r}) -> {again.data['name']}")"""),
    ("md", """\
## 2. Pseudonyms, and `reveal_token` as a lead

A team server uses the `analyst-team` profile: everyone sees pseudonymised identifiers;
the `lead` role may reveal one with `reveal_token`, the `analyst` role may not; `admin` sees
real identifiers. On a Jupyter server roles come from `CloudGExtension.roles` (Jupyter user
name -> roles). Here we call an in-process layer directly as three principals (the layer's
Python API is async; notebooks can `await` at the top level)."""),
    ("py", """\
from cloudg_nb import CloudGMCPLayer
from cloudg_nb.layer.context import Principal

team = CloudGMCPLayer(policy="analyst-team")
await team.call_tool("sample_estate", {"name": "demo"})
assistant = Principal("assistant", {"analyst"})
lead = Principal("lee", {"lead"})
admin = Principal("dana", {"admin"})

exposed = await team.call_tool("find_assets", {"internet_exposed": True}, principal=assistant)
pd.DataFrame(exposed.structured["items"])[["name", "type", "provider", "account_id", "arn"]]"""),
    ("py", """\
token = exposed.structured["items"][0]["account_id"]
for who in (assistant, lead):
    answer = await team.call_tool("reveal_token", {"token": token}, principal=who)
    roles = ", ".join(sorted(who.roles))
    if answer.is_error:
        print(f"{who.id} ({roles}): refused: {answer.content[0].text}")
    else:
        print(f"{who.id} ({roles}): {token} is {answer.structured['entity']} "
              f"{answer.structured['value']}")"""),
    ("md", """\
## 3. The audit trail

`analyst-team` audits every call: who, with which roles, what was decided and why.
Argument values never reach the log in clear (the token above shows as `[REDACTED:token]`).
In a notebook, `%cloudg audit` shows the log of the workspace the magics use."""),
    ("py", """\
log = await team.call_tool("privacy_audit_log", {}, principal=admin)
audit = pd.DataFrame(log.structured["entries"])
audit["ts"] = pd.to_datetime(audit["ts"], unit="s").dt.strftime("%H:%M:%S")
audit[["ts", "principal", "roles", "name", "decision", "arguments", "reason"]]"""),
    ("md", """\
## 4. What an assistant sees, and what the analyst sees

An assistant reads a tool result as text: that text goes into the model's context. Here is
what the `analyst`-role assistant gets for `web-2`, next to the same call made by an
`admin`: real identifiers for the admin, pseudonyms for the assistant, and for both the
planted instruction arrives fenced as untrusted text, so the model treats it as data."""),
    ("py", """\
as_assistant = await team.call_tool("get_asset", {"ref": "web-2"}, principal=assistant)
as_admin = await team.call_tool("get_asset", {"ref": "web-2"}, principal=admin)
print(as_assistant.content[0].text[:700])"""),
    ("py", """\
pd.DataFrame({
    "assistant (analyst)": {k: as_assistant.structured[k] for k in ("account_id", "arn")}
    | {"owner_note": as_assistant.structured["tags"]["owner_note"]},
    "analyst (admin)": {k: as_admin.structured[k] for k in ("account_id", "arn")}
    | {"owner_note": as_admin.structured["tags"]["owner_note"]},
})"""),
    ("md", """\
## 5. The policy in force for this notebook

`%cloudg policy` shows the policy of the workspace the magics use: the Jupyter server's when
this notebook runs in JupyterLab with the extension, else the in-process one."""),
    ("py", """\
%load_ext cloudg_nb
%cloudg policy"""),
    ("py", """\
for client in clients.values():
    client.close()"""),
]

OWN_DATA: list[Cell] = [
    ("md", """\
# Bring your own data

cloudg reads three formats, detected from the file:

* **Prowler JSON-OCSF**: what `prowler aws -M json-ocsf` writes (a JSON array or JSON lines);
* **tables**: a folder of `assets`, `edges`, `findings` (and `compliance`) tables as CSV,
  JSON lines or Parquet; only `assets` is required;
* an **inventory map** (`inventory-map.json`, with a `findings.json` beside it), as
  `export_dataset` writes it.

Tools read files only under the **allowed roots**: in JupyterLab the server's root folder
(`CloudGExtension.allowed_roots` changes it), elsewhere the working directory
(`CLOUDG_MCP_ALLOWED_ROOTS` changes it). The samples used here sit in `data/` beside this
notebook; we pass their absolute paths, which work in both places."""),
    ("py", """\
from pathlib import Path

import pandas as pd

from cloudg_nb.notebook import default_client
from cloudg_nb.notebook.plots import plot_attack_paths

%load_ext cloudg_nb
client = default_client()

DATA = Path("data").resolve()
prowler_file = DATA / "prowler-output-shop.ocsf.json"
tables = DATA / "shop-tables"
broken_file = DATA / "broken-prowler-output.ocsf.json"
sorted(path.name for path in DATA.iterdir())"""),
    ("md", """\
## 1. Prowler output

Each failed check becomes a finding on its resource (muted or suppressed ones stay
suppressed), each resource and account an asset, and each check's compliance mapping a
control result. Prowler reports no relationships; a failed check that says a resource is open
to the internet (an SSH port open to 0.0.0.0/0, a public bucket ...) becomes an internet
exposure derived from that finding, so exposure questions still have answers.

`%cloudg load PATH as NAME` calls the `load_dataset` tool (`$name` puts a Python variable on
the line). `activate=false` keeps the demo estate the active dataset for everyone else."""),
    ("py", """\
%cloudg load "$prowler_file" as shop-prowler activate=false replace=true"""),
    ("py", """\
prowler = client.frame("list_findings", dataset="shop-prowler", include_suppressed=True)
prowler[["severity", "title", "resource_name", "resource_type", "is_suppressed"]]"""),
    ("md", """\
What the internet reaches, with the ports open and the finding each exposure comes from (the
graph tools add a one-line `note`: without relationship data, paths end at these assets):"""),
    ("py", """\
exposure = client.frame("internet_exposure", dataset="shop-prowler")
exposure[["name", "type", "open_ports", "exposure", "derived_from"]]"""),
    ("md", "The passed and failed controls per framework, from the same file:"),
    ("py", """\
compliance = client.call("compliance_summary", dataset="shop-prowler").data
pd.DataFrame(compliance["frameworks"])"""),
    ("md", """\
## 2. Your own tables

A folder of CSV files: one row per asset, per edge and per finding. The columns cloudg
reads are `id, name, asset_type, provider, account_id, region, arn, tags, metadata,
is_internet_exposed` for assets, `source_id, target_id, edge_type, ports, direction ...` for
edges and `id, resource_id, severity, title, description, source_tool, cvss_score,
compliance_frameworks, detected_at ...` for findings; dict and list cells are JSON text."""),
    ("py", 'pd.read_csv(tables / "assets.csv")'),
    ("py", 'pd.read_csv(tables / "edges.csv")'),
    ("py", """\
%cloudg load "$tables" as shop-tables activate=false replace=true"""),
    ("md", """\
With edges, every graph tool works on your data. The attack paths of the shop's estate: from
the internet through the load balancer and the API host to the orders database and the
invoices bucket."""),
    ("py", """\
shop_paths = client.call("attack_paths", dataset="shop-tables")
plot_attack_paths(shop_paths, client.frame("list_findings", dataset="shop-tables"))"""),
    ("md", """\
## 3. What a bad file does

A file that cannot be read is an error that names the file and the problem (here: the JSON
stops in the middle) and changes nothing: the workspace is exactly as it was.

An error shows its **code by name**, the same names the README lists and every MCP client
gets: `invalid_arguments` when the file or an argument is wrong, `access_denied` when the
policy or the allowed roots refuse the call, `not_found` for an unknown name. Its details
(which field, which roots, ...) are shown under the message; in Python they are
`client.last.error.data`."""),
    ("py", """\
before = client.datasets()[["name", "version", "active"]]"""),
    ("py!", """\
%cloudg load "$broken_file" as shop-broken"""),
    ("py", """\
after = client.datasets()[["name", "version", "active"]]
print("workspace unchanged:", before.equals(after))
after"""),
    ("md", """\
A path outside the allowed roots is refused the same way, without reading anything. The
error says how to allow more folders where this workspace runs: in JupyterLab the server's
`CloudGExtension.allowed_roots` setting (in `jupyter_server_config.py`, or
`--CloudGExtension.allowed_roots=...` when starting it), in a workspace of the kernel's own
the `CLOUDG_MCP_ALLOWED_ROOTS` variable."""),
    ("py!", "%cloudg load /etc/passwd as secrets"),
    ("md", """\
What the refusal carries besides its message: the field at fault and the roots allowed, named
relative to the server's folder (never the server's absolute paths)."""),
    ("py", """\
refusal = client.last.error
print(f"code {refusal.code}: field {refusal.data.get('field')!r}, "
      f"allowed roots {refusal.data.get('roots')}")"""),
    ("md", """\
## 4. Tidy up

Unload the samples (the workspace may be shared with your assistant)."""),
    ("py", """\
for name in ("shop-prowler", "shop-tables"):
    client.call("unload_dataset", name=name)
client.datasets()[["name", "version", "active"]]"""),
]

GUIDED: list[Cell] = [
    ("md", """\
# Guided investigation: is the xz backdoor a way in?

**The alert.** Monday morning, a threat-intelligence feed warns that **CVE-2024-3094** (the
backdoored `xz-utils` package) is being exploited. Your lead asks three questions: *do we run
it, can the internet reach it, and what could an attacker get to from there?* Then one more:
*what other doors do we leave open?*

You investigate the **demo estate** (60 assets in AWS, Azure and GCP) with the `%cloudg`
magic. Each task has:

* an **explore** cell with a first command to run: change it, add cells, use any tool
  (`%cloudg tools` lists them, `%cloudg describe TOOL` explains one);
* a **check** cell: put your answer in place of the `...` and run it. It says *right* or
  *not yet* with a hint. The answers are not written anywhere in this notebook: each check
  works its answer out from the estate (`cloudg_nb/notebook/guided.py`) when you run it.

Give assets by name (`web-1`) or id, in any case; a list as `["a", "b"]` or `"a, b"`."""),
    ("py", """\
%load_ext cloudg_nb
from cloudg_nb.notebook.guided import check

%cloudg status"""),
    ("md", """\
## Task 1: do we run it?

Findings come from scanners (Trivy, Prowler, ...): each one names the asset it was found on.
Which asset has the backdoored `xz-utils` package?"""),
    ("py", "%cloudg call list_findings severities=[\"CRITICAL\"]"),
    ("py", 'check("vulnerable-asset", ...)'),
    ("md", """\
## Task 2: can the internet reach it?

`attack_paths` walks the graph from the internet to the sensitive data stores and returns
the shortest paths, drawn here as an interactive graph (click a node for its details). An
asset is rarely reached directly: which internet-facing asset do the paths through the
vulnerable asset **enter** by? (`-o paths` keeps the result in a variable for task 3.)"""),
    ("py", "%cloudg call attack_paths -o paths"),
    ("py", 'check("entry-point", ...)'),
    ("md", """\
## Task 3: what could an attacker get to?

Follow the paths through the vulnerable asset to their ends. Which **sensitive data stores**
(databases, buckets, secrets) do they reach? Give them all, as a list.

The graph above has them; so does `paths`, the result kept in task 2: one entry per path,
each with its `nodes` from the Internet to the data store."""),
    ("py", """\
# every path as the names of its nodes: which ones pass through the vulnerable asset?
[[node["name"] for node in path["nodes"]] for path in paths["paths"]]"""),
    ("py", 'check("crown-jewels", ...)'),
    ("md", """\
## Task 4: what other doors are open?

The xz backdoor is one way in. `internet_exposure` lists every asset the internet reaches,
the rule that lets it in, and the **sensitive ports** (SSH, RDP, databases, Kibana ...) it
leaves open to the world. Which internet-exposed assets have a sensitive port open? Give
them all, as a list."""),
    ("py", "%cloudg call internet_exposure"),
    ("py", 'check("admin-doors", ...)'),
    ("md", """\
## Wrap-up: what to fix first

`top_risks` ranks the assets with open findings by a score that shows its parts (the worst
finding's risk, exposure to the internet, how many assets depend on it, how many findings it
has). Does its first rank agree with your investigation?"""),
    ("py", "%cloudg call top_risks limit=5"),
    ("md", """\
**For teachers.** The checks recompute their answers from the `demo` dataset of the workspace
this notebook uses (in JupyterLab: the server's shared workspace; elsewhere an in-process
one), so they stay right if the demo estate changes and the notebook never holds an answer
to scroll to. `check(task, answer)` returns a `Verdict` (`.right`: True, False or None for
no answer yet); the tasks are `cloudg_nb.notebook.guided.TASKS`."""),
]


NOTEBOOKS: dict[str, list[Cell]] = {
    "01-quickstart.ipynb": QUICKSTART,
    "02-with-an-ai-assistant.ipynb": ASSISTANT,
    "03-privacy-and-policy.ipynb": PRIVACY,
    "04-bring-your-own-data.ipynb": OWN_DATA,
    "05-guided-investigation.ipynb": GUIDED,
}


def build(name: str, cells: list[Cell]) -> nbformat.NotebookNode:
    """The notebook ``name`` with ``cells`` (stable cell ids, no outputs)."""
    stem = name.split("-", 1)[0]
    made = []
    for i, (kind, source) in enumerate(cells):
        cell = (nbformat.v4.new_markdown_cell(source) if kind == "md"
                else nbformat.v4.new_code_cell(source))
        cell["id"] = f"nb{stem}-{i:02d}"
        if kind == "py!":
            cell["metadata"]["tags"] = [EXPECTS_ERROR_TAG]
        made.append(cell)
    notebook = nbformat.v4.new_notebook(cells=made)
    notebook["metadata"] = {
        "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
        "language_info": {"name": "python"},
    }
    return notebook


def text_of(notebook: nbformat.NotebookNode) -> str:
    return nbformat.writes(notebook, version=4) + "\n"


def main(argv: list[str]) -> int:
    check = "--check" in argv
    stale = []
    for name, cells in NOTEBOOKS.items():
        path = HERE / name
        text = text_of(build(name, cells))
        if check:
            if not path.is_file() or path.read_text(encoding="utf-8") != text:
                stale.append(name)
        else:
            path.write_text(text, encoding="utf-8")
    if stale:
        print("out of date (run python notebooks/build.py): " + ", ".join(stale))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
