"""``edge-agent serve``: a local HTTP API over the memory (FastAPI, served by uvicorn), and the
dashboard's page when it is built. :func:`create_app` builds the application; :mod:`.security` holds
the token, the bind-address rule and the request limits."""

from edge_agent.api.app import create_app

__all__ = ["create_app"]
