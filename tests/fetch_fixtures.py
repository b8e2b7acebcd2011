"""The fetch tests' fixtures: a local HTTP server on 127.0.0.1 serving the upstreams' files,
the sources pointed at it, a data folder, no retry waits. tests/unit/fetch/conftest.py and the
real-corpora fetch tests import them."""

from __future__ import annotations

import copy
import hashlib
import re
import socket
import struct
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from fetch_support import SOURCES

from csrwh.fetch import download as fetch_http

# --------------------------------------------------------------------------- local server


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):  # quiet
        pass

    def do_GET(self):
        srv = self.server
        path = urllib.parse.unquote(urllib.parse.urlsplit(self.path).path)
        rng = self.headers.get("Range")
        srv.log.append((path, rng))
        rule = srv.rules.get(path, {})
        if rule.get("reset", 0) > 0:  # hang up at once, with a TCP reset and no answer
            rule["reset"] -= 1
            self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            self.close_connection = True
            return
        if rule.get("fail", 0) > 0:
            rule["fail"] -= 1
            return self._empty(503, rule.get("headers", {}))
        if rule.get("redirect"):  # answer with a redirect (and headers, e.g. X-Linked-Size)
            self.send_response(302)
            self.send_header("Location", rule["redirect"])
            for key, value in rule.get("headers", {}).items():
                self.send_header(key, value)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        file = srv.root / path.lstrip("/")
        if not file.is_file():
            return self._empty(404)
        data = file.read_bytes()
        if rule.get("no_length") is not None:  # close-delimited body of this many bytes
            self.send_response(200)
            self.send_header("Connection", "close")
            self.end_headers()
            self.wfile.write(data[: rule["no_length"]])
            self.close_connection = True
            return
        start = 0
        if rng and srv.ranges:
            start = int(re.fullmatch(r"bytes=(\d+)-", rng).group(1))
            if start >= len(data):
                return self._empty(416)
            self.send_response(206)
            self.send_header("Content-Range", f"bytes {start}-{len(data) - 1}/{len(data)}")
        else:
            self.send_response(200)
        body = data[start:]
        self.send_header("Content-Length", str(len(body)))
        self.send_header("ETag", '"v1"')
        if srv.ranges:
            self.send_header("Accept-Ranges", "bytes")
        self.end_headers()
        drop = rule.pop("drop_after", rule.get("drop_always"))
        if drop is not None:  # send part of the body, then hang up
            self.wfile.write(body[:drop])
            self.wfile.flush()
            self.close_connection = True
            return
        if rule.get("slow"):  # 1000 bytes, then a pause, ...
            try:
                for k in range(0, len(body), 1000):
                    self.wfile.write(body[k : k + 1000])
                    self.wfile.flush()
                    time.sleep(rule["slow"])
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client hung up mid-download (an interrupted or timed-out fetch)
            return
        self.wfile.write(body)

    def _empty(self, code, headers=None):
        self.send_response(code)
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        self.send_header("Content-Length", "0")
        self.end_headers()


@pytest.fixture
def server(tmp_path):
    root = tmp_path / "www"
    root.mkdir()
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    httpd.root, httpd.rules, httpd.log, httpd.ranges = root, {}, [], True
    httpd.daemon_threads = True
    thread = threading.Thread(
        target=httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
    )
    thread.start()
    httpd.url = f"http://127.0.0.1:{httpd.server_address[1]}"
    yield httpd
    httpd.shutdown()
    httpd.server_close()


@pytest.fixture(autouse=True)
def _fast(monkeypatch):
    monkeypatch.setattr(fetch_http, "BACKOFF_SECONDS", 0)
    monkeypatch.setattr(fetch_http, "TIMEOUT_SECONDS", 5)
    monkeypatch.delenv("CSRWH_MIRROR", raising=False)
    # another test module of the same worker may have set HF_HUB_OFFLINE=1 (nothing of theirs may
    # reach the network) before huggingface_hub read it into its constants: fetch's hub tests
    # talk to the fake Hub on 127.0.0.1 and need it online
    import huggingface_hub.constants

    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_OFFLINE", False)


@pytest.fixture
def sources():
    """The real upstream table without the known per-file hashes (test content is synthetic)."""
    s = copy.deepcopy(SOURCES)
    for spec in s["corpora"].values():
        spec.pop("expected_files", None)
    return s


@pytest.fixture
def data_dir(tmp_path):
    return tmp_path / "data"


# --------------------------------------------------------------------------- a fake Hugging Face Hub


HUB_COMMIT = "c0ffee" + "0" * 34  # the commit the fake Hub serves


class _HubHandler(BaseHTTPRequestHandler):
    """The two endpoints huggingface_hub's hf_hub_download calls: ``HEAD`` (metadata) and
    ``GET`` of ``/datasets/<repo>/resolve/<revision>/<path>``. A file in ``hub.lfs`` answers as
    the Hub answers for Git LFS files: a 302 to a CDN host (``localhost`` instead of 127.0.0.1)
    with its sha256 and size in X-Linked-Etag / X-Linked-Size; the others answer 200 with the
    git blob id as ETag. ``hub.cdn_bytes`` replaces what the CDN serves (tampering)."""

    protocol_version = "HTTP/1.1"

    def log_message(self, *args):  # quiet
        pass

    def do_HEAD(self):
        self._answer(body=False)

    def do_GET(self):
        self._answer(body=True)

    def _answer(self, body):
        hub = self.server
        path = urllib.parse.unquote(urllib.parse.urlsplit(self.path).path)
        hub.log.append((self.command, path, self.headers.get("Range")))
        rule = hub.rules.get(path, {})
        if rule.get("fail", 0) > 0:
            rule["fail"] -= 1
            return self._send(503, {}, b"", body)
        cdn = re.fullmatch(r"/cdn/(.+)", path)
        if cdn:
            name = cdn.group(1)
            data = hub.cdn_bytes.get(name, hub.files.get(name))
            if data is None:
                return self._send(404, {}, b"", body)
            etag = f'"{hashlib.sha256(data).hexdigest()}"'
            return self._send(200, {"ETag": etag}, data, body, rule.pop("drop_after", None))
        m = re.fullmatch(r"/datasets/([^/]+/[^/]+)/resolve/([^/]+)/(.+)", path)
        if not m or m.group(1) != hub.repo or m.group(3) not in hub.files:
            return self._send(404, {"X-Error-Code": "EntryNotFound"}, b"", body)
        name = m.group(3)
        data = hub.files[name]
        headers = {"X-Repo-Commit": HUB_COMMIT}
        if name in hub.lfs:
            headers.update(
                {
                    "Location": f"{hub.cdn}/cdn/{name}",
                    "X-Linked-Etag": f'"{hashlib.sha256(data).hexdigest()}"',
                    "X-Linked-Size": str(len(data)),
                    "ETag": '"not-the-content"',
                }
            )
            return self._send(302, headers, b"", body)
        blob = hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()
        drop = rule.pop("drop_after", None) if body else None
        return self._send(200, {**headers, "ETag": f'"{blob}"'}, data, body, drop)

    def _send(self, code, headers, data, body, drop=None):
        """Answer ``data`` (from the Range asked for, on a 200); ``drop``: hang up after that
        many bytes of the body."""
        rng = re.fullmatch(r"bytes=(\d+)-", self.headers.get("Range") or "")
        if code == 200 and rng and body:
            start = int(rng.group(1))
            code, headers = (
                206,
                {**headers, "Content-Range": f"bytes {start}-{len(data) - 1}/{len(data)}"},
            )
            data = data[start:]
        self.send_response(code)
        for key, value in headers.items():
            self.send_header(key, value)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        if body and data:
            self.wfile.write(data if drop is None else data[:drop])
            if drop is not None:
                self.wfile.flush()
                self.close_connection = True


@pytest.fixture
def hub(monkeypatch):
    """A fake Hugging Face Hub on 127.0.0.1 serving dataset ``microsoft/RecoReact``; HF_ENDPOINT
    points at it. Fill ``hub.files`` (path -> bytes), ``hub.lfs`` (paths served as LFS files)."""
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _HubHandler)
    httpd.daemon_threads = True
    httpd.repo, httpd.files, httpd.lfs, httpd.cdn_bytes = "microsoft/RecoReact", {}, set(), {}
    httpd.rules, httpd.log = {}, []
    thread = threading.Thread(
        target=httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
    )
    thread.start()
    port = httpd.server_address[1]
    httpd.url = f"http://127.0.0.1:{port}"
    httpd.cdn = f"http://localhost:{port}"
    monkeypatch.setenv("HF_ENDPOINT", httpd.url)
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    yield httpd
    httpd.shutdown()
    httpd.server_close()
