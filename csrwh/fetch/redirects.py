"""Where a download may be redirected to: the hosts the upstreams name, the registry's
``redirect_hosts`` (default: the hubs' CDNs); and the urllib opener that enforces it and keeps
the hub headers (X-Repo-Commit, X-Linked-Etag, X-Linked-Size) seen on the way."""

from __future__ import annotations

import urllib.parse
import urllib.request
from collections.abc import Iterable
from typing import Any

from csrwh.fetch.sources import SOURCES_FILE, Sources

#: hosts a download may be redirected to besides those the upstreams name, unless the registry
#: has its own ``redirect_hosts`` list: the hubs' download CDNs (``*.`` = any subdomain)
DEFAULT_REDIRECT_HOSTS = (
    "*.github.com",
    "*.githubusercontent.com",
    "*.huggingface.co",
    "*.hf.co",
    "*.modelscope.cn",
)


class RedirectRefused(Exception):
    """A redirect to a host that is not allowed (the download of that URL fails)."""


def allowed_hosts(sources: Sources) -> tuple[str, ...]:
    """Hosts a download may be redirected to: every host named by an upstream (URLs, LFS
    media, download pages, homepages) plus the registry's ``redirect_hosts`` (default
    DEFAULT_REDIRECT_HOSTS: the hubs' CDNs); ``*.example.org`` = any subdomain."""
    hosts: set[str] = set()
    for upstream in sources.upstreams.values():
        for template in upstream.hosts:
            host = urllib.parse.urlsplit(str(template)).hostname
            if host:
                hosts.add(host.lower())
    extra = sources.redirect_hosts
    hosts.update(h.lower() for h in (DEFAULT_REDIRECT_HOSTS if extra is None else extra))
    return tuple(sorted(hosts))


def host_allowed(host: str, allowed: Iterable[str]) -> bool:
    host = host.lower().rstrip(".")
    for pattern in allowed:
        if pattern.startswith("*."):
            if host == pattern[2:] or host.endswith(pattern[1:]):
                return True
        elif host == pattern:
            return True
    return False


class RecordingRedirects(urllib.request.HTTPRedirectHandler):
    """Keeps hub headers (X-Repo-Commit, X-Linked-Etag) seen on redirect responses and
    refuses redirects to a host that is neither the requested one nor an allowed one."""

    KEEP = ("x-repo-commit", "x-linked-etag", "x-linked-size")

    def __init__(self, origin: str, allowed: Iterable[str]) -> None:
        super().__init__()
        self.seen: dict[str, str] = {}
        self.origin = origin
        self.allowed = tuple(allowed)

    def redirect_request(self, req, fp, code, msg, headers, newurl):  # type: ignore[no-untyped-def]
        newurl = urllib.parse.urljoin(req.full_url, newurl)
        host = (urllib.parse.urlsplit(newurl).hostname or "").lower()
        if host != self.origin and not host_allowed(host, self.allowed):
            raise RedirectRefused(
                f"refused a redirect to {newurl}: host {host} is not in the upstream list "
                f"(add it to redirect_hosts in {SOURCES_FILE} if it is legitimate)"
            )
        for key in self.KEEP:
            value = headers.get(key)
            if value and key not in self.seen:
                self.seen[key] = value
        return super().redirect_request(req, fp, code, msg, headers, newurl)


def opener(
    url: str, allowed: Iterable[str] = ()
) -> tuple[urllib.request.OpenerDirector, RecordingRedirects]:
    host = (urllib.parse.urlsplit(url).hostname or "").lower()
    redirects = RecordingRedirects(host, allowed)
    handlers: list[Any] = [redirects]
    if host in ("127.0.0.1", "localhost", "::1"):
        handlers.append(urllib.request.ProxyHandler({}))  # never send loopback via a proxy
    return urllib.request.build_opener(*handlers), redirects
