"""csrwh.fetch's retry policy (one urllib3 Retry, applied by requests' HTTPAdapter): what is
retried, when it gives up, and that received-but-bad bytes never count as a success."""

from __future__ import annotations

import threading
import time

import pytest
from fetch_support import HF, record_sleeps, recoreact_files

from csrwh.errors import CsrwhError
from csrwh.fetch import download as fetch_http
from csrwh.fetch import fetch


def _hub_only(sources):
    """RecoReact from the hub URL alone (no ModelScope fallback to try after it)."""
    spec = sources["corpora"]["recoreact"]
    spec["urls"] = spec["urls"][:1]
    return sources


def _tries(server, path):
    return [p for p, _ in server.log].count(path)


def test_connection_reset_is_retried_then_succeeds(server, sources, data_dir):
    served = recoreact_files(server.root)
    path = f"/{HF}/news-users.jsonl"
    server.rules[path] = {"reset": 2}
    fetch(["recoreact"], data_dir, mirror=server.url, sources=_hub_only(sources))
    assert _tries(server, path) == 3
    assert (data_dir / "recoreact/news-users.jsonl").read_bytes() == served["news-users.jsonl"]


def test_503_then_reset_share_one_budget_of_tries(server, sources, data_dir):
    served = recoreact_files(server.root)
    path = f"/{HF}/news-users.jsonl"
    server.rules[path] = {"fail": 1, "reset": 1}  # a 503, then a reset, then the file
    fetch(["recoreact"], data_dir, mirror=server.url, sources=_hub_only(sources))
    assert _tries(server, path) == 3
    assert (data_dir / "recoreact/news-users.jsonl").read_bytes() == served["news-users.jsonl"]


@pytest.mark.parametrize("attempts", [2, 4])
def test_gives_up_after_attempts_tries_with_one_line_error(
    server, sources, data_dir, monkeypatch, attempts
):
    recoreact_files(server.root)
    path = f"/{HF}/news-users.jsonl"
    server.rules[path] = {"fail": 99}
    monkeypatch.setattr(fetch_http, "ATTEMPTS", attempts)
    with pytest.raises(CsrwhError) as err:
        fetch(["recoreact"], data_dir, mirror=server.url, sources=_hub_only(sources))
    assert _tries(server, path) == attempts
    message = err.value.message
    assert "\n" not in message and "\n" not in (err.value.hint or "")
    assert f"{server.url}{path}" in message and "HTTP 503" in message
    assert f"after {attempts} tries" in message
    assert not (data_dir / "recoreact").exists() and not list(data_dir.glob(".tmp-*"))


def test_resets_until_given_up_name_the_url(server, sources, data_dir):
    recoreact_files(server.root)
    path = f"/{HF}/news-users.jsonl"
    server.rules[path] = {"reset": 99}
    with pytest.raises(CsrwhError) as err:
        fetch(["recoreact"], data_dir, mirror=server.url, sources=_hub_only(sources))
    assert _tries(server, path) == fetch_http.ATTEMPTS
    assert "\n" not in err.value.message and f"{server.url}{path}" in err.value.message
    assert f"after {fetch_http.ATTEMPTS} tries" in err.value.message


def test_backoff_follows_the_policy(server, sources, data_dir, monkeypatch):
    """urllib3 sleeps BACKOFF * 2**(n-1) after the n-th failure in a row (none after the first)."""
    recoreact_files(server.root)
    path = f"/{HF}/news-users.jsonl"
    server.rules[path] = {"fail": 3}
    monkeypatch.setattr(fetch_http, "ATTEMPTS", 4)
    monkeypatch.setattr(fetch_http, "BACKOFF_SECONDS", 0.01)
    slept = record_sleeps(monkeypatch, really=True)
    fetch(["recoreact"], data_dir, mirror=server.url, sources=_hub_only(sources))
    assert _tries(server, path) == 4
    assert [round(s, 3) for s in slept if s > 0] == [0.02, 0.04]


def test_bad_sha256_is_refused_after_its_bytes_arrived_and_nothing_is_kept(
    server, sources, data_dir
):
    """Received-but-bad bytes are not a success: not retried into a pass, not kept."""
    recoreact_files(server.root)
    item = sources["corpora"]["recoreact"]["files"][0]
    item["sha256"] = "0" * 64
    with pytest.raises(CsrwhError) as err:
        fetch(["recoreact"], data_dir, mirror=server.url, sources=_hub_only(sources))
    path = f"/{HF}/{item['remote']}"
    assert _tries(server, path) == 1
    assert "\n" not in err.value.message and item["remote"] in err.value.message
    assert "failed verification" in err.value.message and "0" * 64 in err.value.message
    assert not (data_dir / "recoreact").exists() and not list(data_dir.glob(".tmp-*"))


def test_retry_after_is_honoured_up_to_its_bound(server, sources, data_dir, monkeypatch):
    recoreact_files(server.root)
    path = f"/{HF}/news-users.jsonl"
    server.rules[path] = {"fail": 2, "headers": {"Retry-After": "3600"}}
    monkeypatch.setattr(fetch_http, "RETRY_AFTER_MAX_SECONDS", 0.01)
    slept = record_sleeps(monkeypatch)
    fetch(["recoreact"], data_dir, mirror=server.url, sources=_hub_only(sources))
    assert _tries(server, path) == 3
    assert slept == [0.01, 0.01]


def test_sleep_recorder_counts_only_the_tests_own_thread(monkeypatch):
    """Another thread's sleep (a server's, or one an earlier test left running) is not a retry."""
    slept = record_sleeps(monkeypatch)
    other = threading.Thread(target=time.sleep, args=(0.05,))
    other.start()
    other.join()
    time.sleep(7)  # recorded, not slept
    assert slept == [7]
