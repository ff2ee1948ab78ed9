"""The ``cloudg-nb`` console script: the lab, MCP serving, client configs, in-process commands.

``lab`` starts JupyterLab with the extension; ``serve`` runs the layer over stdio or HTTP
(``serve``); ``config`` prints a client configuration (``--jupyter``: with an assistant
credential the running server mints) and ``assistants`` lists or revokes those; ``demo``,
``tools``, ``call`` and ``read`` use an in-process layer (``local``). Answers go to stdout,
messages to stderr; exit 1: a failed call, 2: usage.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

from .args import UsageError
from .local_layer import load_registry
from .parser import build_parser

__all__ = ["UsageError", "build_parser", "load_registry", "main"]


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return int(args.fn(args))
    except UsageError as exc:
        print(f"cloudg-nb: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
