"""Great Expectations Data Docs render offline, beside their warehouse (issue 25, item 8).

Validation of a copy of the built sample renders Data Docs; Chromium opens the index and a
validation page with every request that is not a local file blocked (and recorded): nothing
may be asked of the network, every stylesheet must load with its rules, the scripts (jQuery,
Bootstrap, bootstrap-table, Vega) must run and Font Awesome's font must load. The gate of a
build writes the Data Docs of the warehouse it builds beside that warehouse, never into the
current folder, so two warehouses keep their own.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import duckdb
import pytest

from csrwh.gate import data_docs
from csrwh.gate.run import DQ_RESULTS, gate, validate

pytestmark = pytest.mark.e2e

SUITES = ["raw.crsarena__votes", "votes"]


@pytest.fixture()
def warehouse(sample_warehouse: Path, tmp_path: Path) -> Path:
    copy = tmp_path / "one" / "csr.duckdb"
    copy.parent.mkdir()
    shutil.copy(sample_warehouse, copy)
    with duckdb.connect(str(copy)) as con:
        con.execute(f"drop table if exists {DQ_RESULTS}")
    return copy


def _offline_load(browser, page_path: Path) -> dict:
    """Open ``page_path`` with the network blocked; what loaded, what was blocked or failed."""
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    blocked: list[str] = []
    failed: list[str] = []

    def route(r) -> None:
        if r.request.url.startswith("file://"):
            r.continue_()
        else:
            blocked.append(r.request.url)
            r.abort("internetdisconnected")

    page.route("**/*", route)
    page.on("requestfailed", lambda req: failed.append(req.url))
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(page_path.resolve().as_uri(), wait_until="load")
    state = page.evaluate(
        """async () => {
        await document.fonts.ready;
        await document.fonts.load('900 16px "Font Awesome 6 Free"');
        // a file:// page may not read a sheet's rules (opaque origin): a sheet that loaded
        // has its CSSStyleSheet (a failed one has none, and shows in requestfailed)
        const sheets = [...document.querySelectorAll('link[rel="stylesheet"]')].map(l =>
          [l.getAttribute('href'), l.sheet ? 1 : 0]);
        const navbar = document.querySelector('.navbar');
        return {
          sheets,
          scripts: [...document.scripts].filter(s => s.src).map(s => s.getAttribute('src')),
          jquery: typeof window.jQuery === 'function',
          bootstrap: !!(window.jQuery && window.jQuery.fn.modal),
          table: !!(window.jQuery && window.jQuery.fn.bootstrapTable),
          vega: typeof window.vega === 'object' && typeof window.vegaEmbed === 'function',
          fontawesome: [...document.fonts].some(
            f => f.family.includes('Font Awesome 6 Free') && f.status === 'loaded'),
          navbarDisplay: navbar ? getComputedStyle(navbar).display : null,
        };
    }"""
    )
    page.close()
    return {**state, "blocked": blocked, "failed": failed, "errors": errors}


def test_data_docs_render_offline_in_chromium(chromium_browser, warehouse: Path) -> None:
    report = validate(warehouse, run_id="offline", suites=SUITES, record=False)
    docs = warehouse.with_name("csr.duckdb.data_docs")
    assert report.data_docs_index == docs / "index.html" and report.data_docs_index.is_file()
    assert data_docs.remote_links(docs) == []
    validation_page = next((docs / "validations").rglob("*.html"))
    for page in (report.data_docs_index, validation_page):
        state = _offline_load(chromium_browser, page)
        where = page.relative_to(docs)
        assert state["blocked"] == [], f"{where} asked the network for {state['blocked']}"
        assert state["failed"] == [], f"{where}: requests failed: {state['failed']}"
        assert state["errors"] == [], f"{where}: script errors: {state['errors']}"
        assert len(state["sheets"]) >= 5, state["sheets"]
        empty = [href for href, size in state["sheets"] if size <= 0]
        assert empty == [], f"{where}: stylesheets that did not load: {empty}"
        assert len(state["scripts"]) >= 8, state["scripts"]
        for lib in ("jquery", "bootstrap", "table", "vega", "fontawesome"):
            assert state[lib], f"{where}: {lib} did not load offline"
        assert state["navbarDisplay"] == "flex", "Bootstrap's navbar style is not applied"


def test_each_warehouse_keeps_its_own_data_docs(
    warehouse: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The gate validates the working copy ``<warehouse>.building-<id>`` and renders its Data
    Docs beside it; publishing makes them the warehouse's, beside the warehouse; another
    warehouse's validation writes beside that one."""
    monkeypatch.chdir(tmp_path)
    building = warehouse.with_name("csr.duckdb.building-B1")
    warehouse.rename(building)
    assert gate(building, "B1", suites=SUITES) == []
    first = tmp_path / "one" / "csr.duckdb.data_docs" / "index.html"
    assert not first.exists(), "the gate replaced the published warehouse's Data Docs"
    assert (tmp_path / "one" / "csr.duckdb.building-B1.data_docs" / "index.html").is_file()
    data_docs.publish(building, warehouse)
    assert first.is_file()
    other = tmp_path / "two" / "demo.duckdb"
    other.parent.mkdir()
    shutil.copy(building, other)
    validate(other, run_id="other", suites=["votes"], record=False)
    second = other.with_name("demo.duckdb.data_docs") / "index.html"
    assert second.is_file()
    assert "B1" in first.read_text(encoding="utf-8"), "the first warehouse's docs were replaced"
    assert not (tmp_path / "reports").exists(), "Data Docs written into the current folder"


_LOCAL = re.compile(r"""<(?:link|script|img)\b[^>]*\b(?:href|src)\s*=\s*["']([^"']+)["']""")
_CSS_URL = re.compile(r"""url\(\s*["']?([^"')]+)""")
_SCHEME = re.compile(r"^(?:[a-z][a-z0-9+.-]*:|#|//)", re.IGNORECASE)  # data:, https:, #frag


def test_every_file_a_page_or_stylesheet_loads_is_in_the_folder(warehouse: Path) -> None:
    """No load from another host, stylesheets included (GX's navbar logo), and no local link to
    a missing file (GX's favicon.ico, linked a folder too high on validation pages)."""
    report = validate(warehouse, run_id="local", suites=SUITES, record=False)
    docs = report.data_docs_index.parent
    pages = sorted(docs.rglob("*.html"))
    assert any("validations" in p.parts for p in pages)
    missing, remote = [], []
    vendor = docs / data_docs.VENDOR  # npm's stylesheets name font fallbacks not vendored
    sheets = [p for p in sorted(docs.rglob("*.css")) if vendor not in p.parents]
    for path in pages + sheets:
        pattern = _CSS_URL if path.suffix == ".css" else _LOCAL
        for link in pattern.findall(path.read_text(encoding="utf-8")):
            if re.match(r"(?:https?:)?//", link, re.IGNORECASE):
                remote.append((str(path.relative_to(docs)), link))
            if _SCHEME.match(link):
                continue
            target = (path.parent / link.split("?")[0].split("#")[0]).resolve()
            if not target.is_file():
                missing.append((str(path.relative_to(docs)), link))
    assert remote == [], remote
    assert missing == [], missing
    icons = [p for p in pages if 'rel="shortcut icon"' in p.read_text(encoding="utf-8")]
    assert len(icons) == len(pages)  # every page's favicon link was checked above
