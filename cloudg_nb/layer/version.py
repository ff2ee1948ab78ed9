"""The package's version, kept in the core so every part reads it without importing the
package root: ``cloudg_nb.__version__`` re-exports it, hatch reads it from here
(``[tool.hatch.version]``), and the layer reports it as its server version by default.
"""

__version__ = "0.1.0"
