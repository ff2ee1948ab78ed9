"""The self-checks of the guided investigation (``notebooks/05-guided-investigation.ipynb``).

``check(task, answer)`` says whether a learner's answer is right, with a hint when it is not,
and never shows the answer: each task's answer is recomputed from the demo estate in the
workspace the notebook uses (so the notebook and this module hold no answer to read off).
Names or ids are accepted, in any case; a list task takes any iterable or a comma-separated
string, in any order.
"""

from __future__ import annotations

import html
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .call_result import CloudGError

if TYPE_CHECKING:
    from .client import Client

__all__ = ["TASKS", "Task", "Verdict", "check"]

#: The estate the tasks are about.
DATASET = "demo"
#: The finding the scenario starts from (the alert names the CVE, not the asset).
ALERT_CVE = "CVE-2024-3094"


@dataclass(frozen=True)
class Verdict:
    """The outcome of one check: ``right`` (None: no answer given yet) and what to tell."""

    task: str
    right: bool | None
    message: str

    def __bool__(self) -> bool:
        return bool(self.right)

    def __repr__(self) -> str:
        mark = {True: "✓ right", False: "✗ not yet", None: "… no answer yet"}[self.right]
        return f"{self.task}: {mark}. {self.message}"

    def _repr_html_(self) -> str:
        colour = {True: "#2e7d32", False: "#ef6c00", None: "#757575"}[self.right]
        mark = {True: "✓ Right", False: "✗ Not yet", None: "… No answer yet"}[self.right]
        return (f'<div class="cloudg-check" data-right="{str(self.right).lower()}" '
                f'style="border-left:4px solid {colour};padding:4px 10px;margin:2px 0">'
                f'<b style="color:{colour}">{mark}</b> · <code>{html.escape(self.task)}</code>'
                f"<div>{html.escape(self.message)}</div></div>")


#: An asset as the tasks accept it: its name or its id, compared case-insensitively.
Asset = frozenset[str]


def _asset(item: Mapping[Any, Any], name: str = "name", ident: str = "id") -> Asset:
    return frozenset(str(item[k]).casefold() for k in (name, ident) if item.get(k))


def _words(answer: Any) -> list[str]:
    """The learner's answer as a list of words (a string may be comma-separated)."""
    if isinstance(answer, str):
        parts: Iterable[Any] = answer.split(",")
    elif isinstance(answer, Iterable):
        parts = answer
    else:
        parts = [answer]
    return [str(p).strip().casefold() for p in parts if str(p).strip()]


def _one(answer: Any, right: list[Asset]) -> tuple[bool, str]:
    words = _words(answer)
    if len(words) != 1:
        return False, "The answer is one asset: give its name (or id) as a string."
    return any(words[0] in asset for asset in right), ""


def _all(answer: Any, right: list[Asset], what: str) -> tuple[bool, str]:
    """Right when the answer names each asset of ``right`` once and nothing else."""
    words = _words(answer)
    named = [asset for asset in right if any(w in asset for w in words)]
    strays = [w for w in words if not any(w in asset for asset in right)]
    if strays:
        return False, (f"{len(strays)} of your {len(words)} answers "
                       f"{'is' if len(strays) == 1 else 'are'} not among the {what}.")
    if len(named) < len(right):
        return False, f"You named {len(named)} of them; there are more."
    return True, ""


# -- what each task's answer is, recomputed from the estate -----------------------------


def _vulnerable(client: Client) -> list[Asset]:
    findings = client.frame("list_findings", dataset=DATASET, progress=False)
    hit = findings[findings["title"].str.contains(ALERT_CVE, regex=False)]
    return [_asset(row, "resource_name", "resource_id") for row in hit.to_dict("records")]


def _paths_through(client: Client) -> list[dict[str, Any]]:
    vulnerable = set().union(*_vulnerable(client))
    paths = client.call("attack_paths", dataset=DATASET, progress=False).data["paths"]
    return [p for p in paths
            if any(_asset(node) & vulnerable for node in p["nodes"])]


def _entries(client: Client) -> list[Asset]:
    return list({_asset(p["entry"]) for p in _paths_through(client)})


def _jewels(client: Client) -> list[Asset]:
    return list({_asset(p["nodes"][-1]) for p in _paths_through(client)})


def _admin_doors(client: Client) -> list[Asset]:
    exposed = client.frame("internet_exposure", dataset=DATASET, progress=False)
    return [_asset(row) for row in exposed.to_dict("records") if len(row["sensitive_ports"])]


@dataclass(frozen=True)
class Task:
    """One task: how to recompute its answer, whether it is a list, and a hint that points
    at the tool to use (never at the answer)."""

    answer: Callable[[Client], list[Asset]]
    many: str  # "" for one asset, else what the list holds ("sensitive data stores")
    hint: str


TASKS: dict[str, Task] = {
    "vulnerable-asset": Task(_vulnerable, "", (
        "Which asset has the finding about the backdoored xz-utils package? list_findings "
        "shows each finding's resource_name.")),
    "entry-point": Task(_entries, "", (
        "Look at the attack paths that pass through the vulnerable asset: which asset do they "
        "enter by, right after the Internet? (attack_paths: the entry of each path)")),
    "crown-jewels": Task(_jewels, "sensitive data stores reached through the vulnerable asset", (
        "Every attack path through the vulnerable asset ends at a sensitive data store: "
        "list each one once (attack_paths, the last node of each path).")),
    "admin-doors": Task(_admin_doors, "internet-exposed assets with a sensitive port open", (
        "internet_exposure lists what the internet reaches; sensitive_ports shows the admin "
        "and database ports (SSH, RDP, Kibana ...) open to the world.")),
}


def check(task: str, answer: Any, client: Client | None = None) -> Verdict:
    """Whether ``answer`` is right for ``task`` (a name in ``TASKS``), recomputed from the
    demo estate of ``client`` (default: the notebook's); ``...`` or None: no answer yet."""
    if task not in TASKS:
        return Verdict(task, False, f"There is no task {task!r}; the tasks are "
                                    f"{', '.join(TASKS)}.")
    if answer is ... or answer is None or answer == "":
        return Verdict(task, None, "Replace the ... with your answer and run the cell again.")
    if client is None:
        from .client import default_client

        client = default_client()
    spec = TASKS[task]
    try:
        right = spec.answer(client)
    except (CloudGError, KeyError, TypeError):  # no such dataset, or an error result
        right = []
    if not right:
        return Verdict(task, False, f"The {DATASET!r} estate in this workspace does not have "
                                    "what this task is about: load it again with "
                                    "%cloudg call sample_estate name=demo replace=true.")
    ok, why = _all(answer, right, spec.many) if spec.many else _one(answer, right)
    if ok:
        return Verdict(task, True, "Well found.")
    return Verdict(task, False, " ".join(p for p in (why, f"Hint: {spec.hint}") if p))
