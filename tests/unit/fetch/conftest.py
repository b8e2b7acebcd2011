"""The local HTTP server (127.0.0.1, no internet) and fixtures of the csrwh.fetch tests."""

from __future__ import annotations

import copy
import re
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
        if rule.get("fail", 0) > 0:
            rule["fail"] -= 1
            return self._empty(503)
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
            for k in range(0, len(body), 1000):
                self.wfile.write(body[k : k + 1000])
                self.wfile.flush()
                time.sleep(rule["slow"])
            return
        self.wfile.write(body)

    def _empty(self, code):
        self.send_response(code)
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
