"""Moved to ``cloudg_nb.client_config`` (client configuration text is the CLI's, not the MCP
edge's); this name keeps older notebooks and scripts working."""

from ..client_config import *  # noqa: F403
from ..client_config import __all__  # noqa: F401
