"""Finding the workspace and opening a session to it, once for every way in: ``connect()`` (a
server named or found), ``default_client()`` (the server found, else an in-process layer that
says why) and the warm-up (the server found, else nothing). ``opener`` wraps a backend and
starts it (``Client.open``), so this module never imports the client. (Not ``connect.py``:
``cloudg_nb.notebook.connect`` is the public function.)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, TypeVar

from .call_result import CloudGError, ErrorInfo

if TYPE_CHECKING:
    from ..jupyter_discovery import JupyterEndpoint
    from .backends import Backend

__all__ = ["open_default", "open_found", "open_remote"]

C = TypeVar("C")


def open_remote(opener: Callable[[Backend], C], url: str | None = None,
                token: str | None = None) -> C:
    """The cloudg endpoint of the Jupyter server at ``url`` (or found as ``connect()`` says),
    opened. Raises ``JupyterServerNotFound`` or ValueError when none is found, CloudGError
    when it does not answer."""
    from ..jupyter_discovery import find_jupyter_endpoint

    return _open_endpoint(opener, find_jupyter_endpoint(url, token))


def open_found(opener: Callable[[Backend], C]) -> C | None:
    """The Jupyter server found, opened; None when none is found. Raises CloudGError when
    it does not answer."""
    endpoint, _ = _find()
    return None if endpoint is None else _open_endpoint(opener, endpoint)


def open_default(opener: Callable[[Backend], C]) -> C:
    """The Jupyter server found, opened; else (none found, or it does not answer) an
    in-process layer whose description says why."""
    endpoint, reason = _find()
    if endpoint is not None:
        try:
            return _open_endpoint(opener, endpoint)
        except CloudGError as exc:
            reason = f"the server found ({endpoint.server_url}) did not answer: {exc.error.name}"
    from .inprocess import LocalBackend  # the whole layer: imported only when needed

    return opener(LocalBackend(reason=reason))


def _find() -> tuple[JupyterEndpoint | None, str]:
    """The endpoint found, or None and why not."""
    from ..jupyter_discovery import JupyterServerNotFound, find_jupyter_endpoint

    try:
        return find_jupyter_endpoint(), ""
    except (JupyterServerNotFound, ValueError, ImportError) as exc:
        return None, "no Jupyter server found" if isinstance(exc, JupyterServerNotFound) else (
            f"server lookup failed: {exc}")


def _open_endpoint(opener: Callable[[Backend], C], endpoint: JupyterEndpoint) -> C:
    from .remote import RemoteBackend

    backend = RemoteBackend(endpoint.url, endpoint.token, found_by=endpoint.found_by)
    try:
        return opener(backend)
    except (KeyboardInterrupt, CloudGError):
        raise
    except Exception as exc:
        raise CloudGError(ErrorInfo(
            "connection",
            f"Could not connect to {backend.url} ({type(exc).__name__}: {exc}). Check that the "
            "Jupyter server runs with the cloudg extension and that the token is right.",
            data={"exception": type(exc).__name__})) from None
