"""edge-agent: an on-device agent that remembers the physical things a camera sees.

The public native API lives in :mod:`edge_agent.native`.
"""

__version__ = "0.1.0"

__all__ = ["__version__"]
