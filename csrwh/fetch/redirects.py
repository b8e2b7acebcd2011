"""Where a download may be redirected to: the hosts the upstreams name, the registry's
``redirect_hosts`` (default: the hubs' CDNs); and the requests :class:`Session` that enforces it, retries by the
download's Retry policy and keeps the hub headers (X-Repo-Commit, X-Linked-Etag, X-Linked-Size)
seen on the way."""

from __future__ import annotations

import urllib.parse
from collections.abc import Iterable

import requests
from requests.adapters import HTTPAdapter
from urllib3.util.retry import Retry

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


class Session(requests.Session):
    """A requests session that retries by ``retry`` (every try of a download goes through its
    HTTPAdapter), refuses a redirect to a host that is neither the requested one nor an allowed
    one, and never sends a loopback URL through a proxy."""

    #: hub headers kept from the final response and the redirects before it
    KEEP = ("x-repo-commit", "x-linked-etag", "x-linked-size")

    def __init__(self, url: str, allowed: Iterable[str], retry: Retry) -> None:
        super().__init__()
        self.origin = (urllib.parse.urlsplit(url).hostname or "").lower()
        self.allowed = tuple(allowed)
        adapter = HTTPAdapter(max_retries=retry)
        self.mount("http://", adapter)
        self.mount("https://", adapter)
        if self.origin in ("127.0.0.1", "localhost", "::1"):
            self.trust_env = False  # never send loopback via a proxy

    def get_redirect_target(self, resp: requests.Response) -> str | None:
        target = super().get_redirect_target(resp)
        if target is None:
            return None
        newurl = urllib.parse.urljoin(resp.url, target)
        host = (urllib.parse.urlsplit(newurl).hostname or "").lower()
        if host != self.origin and not host_allowed(host, self.allowed):
            resp.close()
            raise RedirectRefused(
                f"refused a redirect to {newurl}: host {host} is not in the upstream list "
                f"(add it to redirect_hosts in {SOURCES_FILE} if it is legitimate)"
            )
        return target

    @classmethod
    def kept_headers(cls, resp: requests.Response) -> dict[str, str]:
        """The KEEP headers of the first redirect that sent them, or else of ``resp``."""
        seen: dict[str, str] = {}
        for r in (*resp.history, resp):
            for key in cls.KEEP:
                value = r.headers.get(key)
                if value:
                    seen.setdefault(key, value)
        return seen
