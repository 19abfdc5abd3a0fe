"""Downloading a model file, only when the user asks (``edge-agent models fetch``; the agent never
downloads at run time). Standard library only: urllib over HTTP(S), resumed with a Range request from a
``<file>.part`` left by an interrupted run, hashed while it arrives, and moved into place only when its
size and sha256 are the manifest's. A mismatch is refused and the partial file removed."""

from __future__ import annotations

import hashlib
import http.client
import os
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from edge_agent.errors import EdgeAgentError
from edge_agent.modelfiles.verify import hash_file, sha256_file

__all__ = ["FetchError", "FetchResult", "fetch"]

USER_AGENT = "edge-agent-models-fetch"


class FetchError(EdgeAgentError, RuntimeError):
    """The file could not be fetched or is not the expected one; the message says why and what to do."""


@dataclass(frozen=True)
class FetchResult:
    path: Path
    bytes_downloaded: int
    resumed_from: int  #: bytes of an earlier .part kept (0: a fresh download)
    already_present: bool = False


def _refuse(part: Path, message: str) -> FetchError:
    part.unlink(missing_ok=True)
    return FetchError(message)


def fetch(
    url: str,
    dest: Path,
    *,
    sha256: str,
    size: int,
    timeout: float = 30.0,
    progress: Callable[[int, int], None] | None = None,
    chunk: int = 1 << 16,
) -> FetchResult:
    """Download ``url`` to ``dest`` (its folder is created), resuming ``dest.part`` when the server
    honours Range; verify size and sha256 before the atomic rename. ``progress(done, size)`` is called
    per chunk. An existing ``dest`` that already verifies is kept as it is."""
    scheme = urllib.parse.urlsplit(url).scheme
    if scheme not in ("http", "https"):
        raise FetchError(f"only http:// and https:// URLs are fetched, got {url!r}")
    if dest.is_file() and dest.stat().st_size == size and sha256_file(dest) == sha256:
        return FetchResult(dest, 0, 0, already_present=True)
    part = dest.with_name(dest.name + ".part")
    have = part.stat().st_size if part.is_file() else 0
    if have > size:  # not a prefix of this file
        part.unlink()
        have = 0
    request = urllib.request.Request(url, headers={"User-Agent": USER_AGENT, "Accept-Encoding": "identity"})
    if have:
        request.add_header("Range", f"bytes={have}-")
    host = urllib.parse.urlsplit(url).netloc
    try:
        response = urllib.request.urlopen(request, timeout=timeout)  # noqa: S310 - scheme checked above
    except urllib.error.HTTPError as exc:
        exc.close()
        if exc.code == 416 and have == size:  # the .part is already whole: verify it below
            response = None
        elif exc.code == 416:
            raise _refuse(
                part,
                f"{url}: the server has fewer bytes than the partial file {part.name}; it was removed, run fetch again",
            ) from None
        else:
            raise FetchError(f"{url}: the server answered HTTP {exc.code} {exc.reason}") from None
    except (urllib.error.URLError, OSError) as exc:
        reason = getattr(exc, "reason", exc)
        raise FetchError(
            f"cannot reach {host} ({reason}); no network here? Fetch the file on a connected machine and "
            f"copy it to {dest}, then run `edge-agent models verify`"
        ) from None
    downloaded = 0
    resumed_from = have
    if response is not None:
        with response:
            if have and response.status != 206:  # the server ignored Range: start again
                resumed_from = have = 0
            elif have and not str(response.headers.get("Content-Range", "")).startswith(f"bytes {have}-"):
                raise _refuse(
                    part,
                    f"{url}: the server resumed at the wrong offset ({response.headers.get('Content-Range')}); "
                    "the partial file was removed, run fetch again",
                )
            length = response.headers.get("Content-Length")
            announced = have + int(length) if length and length.isdigit() else None  # where the server says it ends
            digest = hash_file(part, have) if have else hashlib.sha256()
            done = have
            dest.parent.mkdir(parents=True, exist_ok=True)
            try:
                with open(part, "ab" if have else "wb") as out:
                    while block := response.read(chunk):
                        done += len(block)
                        if done > size:
                            raise _refuse(part, f"{url}: more than the expected {size} bytes; refused and removed")
                        digest.update(block)
                        out.write(block)
                        downloaded += len(block)
                        if progress is not None:
                            progress(done, size)
            except (
                urllib.error.URLError,
                http.client.HTTPException,
                OSError,
            ) as exc:  # keep the .part: the next run resumes it
                raise FetchError(
                    f"the download from {host} broke off after {done} of {size} bytes ({exc}); "
                    f"run fetch again to resume from {part.name}"
                ) from None
            if done < size and (announced is None or done < announced):  # the connection ended early: keep the .part
                raise FetchError(
                    f"the download from {host} broke off after {done} of {size} bytes; "
                    f"run fetch again to resume from {part.name}"
                )
    else:
        digest, done = hash_file(part, have), have
    actual = digest.hexdigest()
    if done != size or actual != sha256:
        raise _refuse(
            part,
            f"{url}: got {done} bytes with sha256 {actual}; expected {size} bytes with sha256 {sha256}. "
            "Refused: not the file edge-agent was tested with (the partial file was removed)",
        )
    os.replace(part, dest)
    return FetchResult(dest, downloaded, resumed_from)
