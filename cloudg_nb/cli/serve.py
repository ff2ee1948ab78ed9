"""The serving commands: ``serve`` (the in-process layer over stdio, or HTTP with bearer
tokens, Host/Origin checks and session limits) and ``lab`` (JupyterLab with the cloudg
extension, demo estate loaded). HTTP refuses a non-loopback ``--host`` without a token unless
``--allow-anonymous`` says so."""

from __future__ import annotations

import argparse
import os

from .args import UsageError, is_loopback
from .local_layer import local_layer

__all__ = ["cmd_lab", "cmd_serve"]


def cmd_lab(args: argparse.Namespace) -> int:
    from pathlib import Path

    from ..lab import LabLaunch, LabStartError, run_lab
    from ..policy.document import ENV_VAR as POLICY_ENV_VAR

    launch = LabLaunch(ip=args.ip, port=args.port, root_dir=Path(args.root_dir),
                       notebook=args.notebook,
                       policy=args.policy or os.environ.get(POLICY_ENV_VAR) or None,
                       registry=args.registry)
    if not launch.root_dir.is_dir():
        raise UsageError(f"--root-dir: no such directory: {args.root_dir}")
    try:
        return run_lab(launch)
    except LabStartError as exc:
        raise UsageError(str(exc)) from None


def cmd_serve(args: argparse.Namespace) -> int:
    from ..protocol import BearerTokens

    try:
        tokens = BearerTokens.from_specs(args.auth_token or ())
    except ValueError as exc:
        raise UsageError(f"--auth-token: {exc}") from None
    layer = local_layer(args)
    if args.transport == "stdio":
        if tokens or args.allowed_host or args.allowed_origin or args.oauth:
            raise UsageError("--auth-token, --oauth, --allowed-host and --allowed-origin "
                             "apply to --transport http only")
        from ..protocol import run_stdio

        run_stdio(layer)
        return 0
    from ..protocol import run_http

    if not args.path.startswith("/"):
        raise UsageError("--path must start with '/', for example /mcp")
    if not tokens and not args.allow_anonymous and not is_loopback(args.host):
        raise UsageError(
            "--host is not a loopback address and no --auth-token was given, so anyone who "
            "can reach this machine could call the tools; add --auth-token TOKEN:ROLES:ID "
            "(or --allow-anonymous if that is really intended)"
        )
    if args.oauth and not tokens:
        raise UsageError("--oauth needs the owner's --auth-token TOKEN:ROLES:ID: the consent "
                         "page asks for it before an assistant is allowed in")
    from ..protocol.sessions import SessionLimits

    per_caller = args.max_sessions_per_caller
    limits = SessionLimits(
        idle_timeout=args.session_idle_timeout or None,
        max_sessions=args.max_sessions or None,
        **({"per_principal": per_caller, "anonymous": per_caller} if per_caller else {}),
    )
    try:
        run_http(
            layer, host=args.host, port=args.port, path=args.path, tokens=tokens or None,
            allowed_hosts=args.allowed_host or (), allowed_origins=args.allowed_origin or (),
            session_limits=limits, oauth=args.oauth,
        )
    except OSError as exc:
        raise UsageError(f"cannot listen on {args.host}:{args.port} ({exc.strerror})") from None
    return 0
