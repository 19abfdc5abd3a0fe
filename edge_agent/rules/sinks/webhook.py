"""The ``webhook`` sink: an HTTP POST of the alert as JSON, with the standard library's urllib (one JSON POST
with a timeout needs no HTTP client dependency)."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from collections.abc import Mapping
from typing import Any

from edge_agent.config.sinks import WebhookSinkConfig
from edge_agent.rules.sinks.base import Sink, SinkError, describe_cause

__all__ = ["WebhookSink"]


class WebhookSink(Sink):
    def __init__(self, config: WebhookSinkConfig) -> None:
        self.name = config.name
        self.config = config

    def send(self, payload: Mapping[str, Any]) -> None:
        url, timeout = self.config.url, self.config.timeout_s
        body = json.dumps(payload, ensure_ascii=False).encode("utf-8")
        headers = {"Content-Type": "application/json", "User-Agent": "edge-agent", **self.config.headers}
        request = urllib.request.Request(url, data=body, headers=headers, method="POST")
        try:
            with urllib.request.urlopen(request, timeout=timeout) as response:
                status = response.status
                response.read()
        except urllib.error.HTTPError as exc:
            exc.close()
            raise SinkError(f"webhook {url}: HTTP {exc.code} {exc.reason}") from None
        except urllib.error.URLError as exc:
            reason = exc.reason if isinstance(exc.reason, BaseException) else OSError(str(exc.reason))
            suffix = f" after {timeout:g} s" if isinstance(reason, TimeoutError) else ""
            raise SinkError(f"webhook {url}: {describe_cause(reason)}{suffix}") from exc
        except TimeoutError as exc:
            raise SinkError(f"webhook {url}: timed out after {timeout:g} s") from exc
        except OSError as exc:
            raise SinkError(f"webhook {url}: {describe_cause(exc)}") from exc
        if not 200 <= status < 300:
            raise SinkError(f"webhook {url}: HTTP {status}")
