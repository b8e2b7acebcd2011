"""End-to-end: start `csrwh dashboard` on a built sample warehouse, open every page in headless
Chromium, check that key numbers read straight from the marts (plain SQL here, not the
dashboard's query layer) appear, click filters, save one screenshot per page under
reports/screenshots/, and publish a new warehouse file (atomic rename, as `csrwh build`
does) under the running dashboard: the open page must pick the new file up by itself.

What is drawn is checked, not only that a page loads: every page answers at its own URL (and
``/`` forwards to ``/overview``); charts give every category its own colour and every bar one
whole label (read from the SVG Vega draws); the failed-expectations table keeps its rows a few
lines tall; corpus text holding Markdown (an image of a remote host, a heading) is shown as
text, and the browser never requests that image."""

from __future__ import annotations

import json
import os
import shutil
import time
from pathlib import Path

import duckdb
import pytest

pytestmark = pytest.mark.e2e

NO_DQ_TEXT = "No data-quality results in this warehouse"
TIMEOUT_MS = 20_000
# as long as the real suites' explanations (125-213 characters on the real corpora)
WHY = (
    "A conversation normally has both sides; a few one-sided ones exist upstream (users who "
    "left after their first message), many would mean that the roles are misread by the ingest."
)
MAX_ROW_PX = 120  # a failed expectation's row: a few lines, not a column of wrapped words
# corpus text that is Markdown: a remote image (the browser must never request it) and a
# heading (must not render as one)
LEAK_URL = "http://127.0.0.1:9/csrwh-leak.png"
HOSTILE_TEXT = f"# Big heading from the corpus\n\n![t]({LEAK_URL}) and **not bold**"


# ---------------------------------------------------------------------------------------------
# expectations straight from the marts
# ---------------------------------------------------------------------------------------------


def one(con: duckdb.DuckDBPyConnection, sql: str, params: list | None = None):
    row = con.execute(sql, params or []).fetchone()
    return None if row is None else (row[0] if len(row) == 1 else row)


def fmt_int(n) -> str:
    return f"{int(n):,}"


def add_dq_results(path: Path) -> dict:
    """Write a `main.dq_results` with one run (3 passed, 1 critical and 1 warning failure)
    into ``path``; returns what the health page must show."""
    try:  # the validation module's own DDL when it is there, so schema drift shows up here
        from csrwh.gate.results import _DQ_RESULTS_DDL as ddl  # type: ignore[attr-defined]
    except Exception:  # noqa: BLE001
        ddl = """create table if not exists main.dq_results (run_id varchar, validated_at timestamp,
            suite varchar, table_name varchar, expectation varchar, expectation_type varchar,
            severity varchar, success boolean, observed_value json, offending_rows json,
            error varchar, why varchar)"""
    rows = [
        ("conversations", "conversation_id_unique", "critical", True, 0),
        ("conversations", "language_in_set", "critical", True, 0),
        ("turns", "turn_index_contiguous", "critical", True, 0),
        ("ratings", "e2e_value_normalized_in_unit_interval", "critical", False, 3),
        ("votes", "e2e_feedback_mostly_present", "warning", False, 0.42),
    ]
    with duckdb.connect(str(path)) as con:
        con.execute("drop table if exists main.dq_results")
        con.execute(ddl)
        cols = [c for (c,) in con.execute(
            "select column_name from duckdb_columns() where schema_name = 'main' and table_name = 'dq_results'"
        ).fetchall()]  # fmt: skip
        for suite, expectation, severity, success, observed in rows:
            values = {
                "run_id": "e2e-run-1", "validated_at": "2026-01-01 12:00:00", "suite": suite,
                "table_name": f"main.{suite}", "expectation": expectation,
                "expectation_type": "expect_e2e", "severity": severity, "success": success,
                "observed_value": json.dumps(observed), "why": WHY,
            }  # fmt: skip
            present = [c for c in cols if c in values]
            con.execute(
                f"insert into main.dq_results ({', '.join(present)}) values ({', '.join('?' for _ in present)})",
                [values[c] for c in present],
            )
    return {
        "n": len(rows),
        "passed": 3,
        "critical": 1,
        "failed_name": "e2e_value_normalized_in_unit_interval",
    }


# ---------------------------------------------------------------------------------------------
# browser helpers
# ---------------------------------------------------------------------------------------------


def open_page(page, dash, url_path: str, title: str) -> None:
    page.goto(f"{dash.base_url}/{url_path}")
    page.get_by_role("heading", name=title, exact=False).first.wait_for(timeout=TIMEOUT_MS)
    wait_idle(page)


def wait_idle(page) -> None:
    page.wait_for_selector(
        '[data-testid="stApp"][data-test-script-state="notRunning"][data-test-connection-state="CONNECTED"]',
        timeout=TIMEOUT_MS,
    )


def metric(page, label: str):
    return (
        page.locator('[data-testid="stMetric"]')
        .filter(has=page.locator('[data-testid="stMetricLabel"]', has_text=label))
        .first.locator('[data-testid="stMetricValue"]')
    )


def expect_text(locator, text: str) -> None:
    from playwright.sync_api import expect

    expect(locator).to_have_text(text, timeout=TIMEOUT_MS)


def expect_contains(page, text: str) -> None:
    from playwright.sync_api import expect

    expect(page.locator('[data-testid="stMain"]')).to_contain_text(text, timeout=TIMEOUT_MS)


def no_exception(page) -> None:
    assert page.locator('[data-testid="stException"]').count() == 0, page.locator(
        '[data-testid="stException"]'
    ).first.inner_text()


def screenshot(page, directory: Path, name: str) -> Path:
    """Full page: Streamlit scrolls inside stMain, so grow the viewport to its height first."""
    wait_idle(page)
    height = page.evaluate(
        "() => { const m = document.querySelector('[data-testid=stMain]'); "
        "return Math.max(m ? m.scrollHeight : 0, document.body.scrollHeight); }"
    )
    page.set_viewport_size({"width": 1400, "height": int(min(max(height, 900), 7000))})
    page.wait_for_timeout(400)  # let charts re-layout to the new size
    path = directory / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    page.set_viewport_size({"width": 1400, "height": 1000})
    return path


CHARTS_JS = """() => [...document.querySelectorAll('[data-testid=stVegaLiteChart]')].map(ch => {
  const svg = ch.querySelector('svg.marks');
  if (!svg) return null;
  const all = s => [...svg.querySelectorAll(s)];
  const yAxis = all('g.role-axis').filter(a => /Y-axis/.test(a.getAttribute('aria-label') || ''));
  return {
    bars: all('g.mark-rect.role-mark path').map(p => p.getAttribute('fill')),
    ylabels: yAxis.flatMap(a => [...a.querySelectorAll('g.role-axis-label text')]
      .filter(t => t.getAttribute('opacity') !== '0').map(t => t.textContent)),
    legend: all('g.role-legend-label text').map(t => t.textContent),
    legendFill: all('g.role-legend-symbol path').map(p => p.getAttribute('fill')),
  };
})"""


def drawn_charts(page, n: int) -> list[dict]:
    """What Vega drew (SVG) in the page's ``n`` charts: bar fills, y-axis labels, legend
    labels and legend colours; waits until every chart has drawn."""
    charts = page.locator('[data-testid="stVegaLiteChart"]')
    for i in range(n):
        charts.nth(i).scroll_into_view_if_needed(timeout=TIMEOUT_MS)
        charts.nth(i).locator("svg.marks").wait_for(timeout=TIMEOUT_MS)
    drawn = page.evaluate(CHARTS_JS)
    assert len(drawn) == n and all(drawn), f"expected {n} drawn charts, got {drawn}"
    return drawn


def assert_colours_per_category(chart: dict, categories: list[str]) -> None:
    """Each category its own colour; one legend entry per category, whole; every bar in one."""
    fills = chart["legendFill"]
    assert len(set(fills)) == len(fills) == len(categories), dict(zip(chart["legend"], fills))
    assert sorted(chart["legend"]) == sorted(categories), chart["legend"]
    assert set(chart["bars"]) <= set(fills), (chart["bars"], fills)


def pick_multiselect(page, label: str, value: str) -> None:
    box = page.get_by_role("combobox", name=label, exact=True).first
    box.click()
    box.fill(value)
    page.get_by_role("option", name=value, exact=True).first.click()
    page.keyboard.press("Escape")


# ---------------------------------------------------------------------------------------------
# the test
# ---------------------------------------------------------------------------------------------


def test_dashboard_pages_in_chromium(
    browser_requirements: str,  # first: skip (or fail under CI) before building anything
    sample_warehouse: Path,
    dashboard_factory,
    chromium_browser,
    screenshot_dir: Path,
    tmp_path: Path,
) -> None:
    started = time.monotonic()
    served = tmp_path / "published" / "csr.duckdb"
    served.parent.mkdir()
    shutil.copy2(sample_warehouse, served)
    with duckdb.connect(str(served)) as con:
        con.execute("drop table if exists main.dq_results")

    con = duckdb.connect(str(served), read_only=True)
    try:
        n_conversations = one(con, "select count(*) from conversations")
        n_utterances = one(con, "select sum(n_turns) from conversations")
        corpora = [
            c
            for (c,) in con.execute(
                "select distinct corpus from conversations order by 1"
            ).fetchall()
        ]
        filter_corpus = "crsarena" if "crsarena" in corpora else corpora[0]
        n_filtered = one(
            con, "select count(*) from conversations where corpus = ?", [filter_corpus]
        )
        first_conv, first_n_turns = one(
            con,
            "select conversation_id, n_turns from conversations order by corpus, subset, conversation_id limit 1",
        )
        first_label = one(
            con,
            "select annotator || ': ' || raw_label from intents where conversation_id = ? "
            "order by turn_index, label_scheme, not is_primary, annotator, raw_label limit 1",
            [first_conv],
        )
        boards = {
            env: one(
                con,
                "select system_id, elo from crs_leaderboard where environment = ? and battles > 0 "
                "order by elo_rank, elo desc, system_id limit 1",
                [env],
            )
            for env in ("global", "open")
        }
        agreement = con.execute("select value from annotator_agreement").fetchall()
        n_ratings = one(con, "select count(*) from ratings")
        n_aspects = one(con, "select count(distinct (corpus, aspect)) from ratings")
        n_queries = one(con, "select count(*) from search_queries")
        n_landing = one(con, "select count(*) from landing_page_views")
        first_query = one(
            con,
            "select q.query_text from search_queries q where (q.conversation_id, q.turn_index) = ("
            " select (conversation_id, turn_index) from search_queries"
            " order by try_cast(split_part(conversation_id, ':', 2) as bigint) nulls last, conversation_id,"
            " turn_index nulls last limit 1) order by q.queried_at, q.query_id limit 1",
        )
        # what the charts must draw: per subset one bar, per domain one colour (in the
        # breakdown's order); per corpus and label scheme, every raw label with its bar
        breakdown = con.execute(
            "select corpus || ' / ' || subset, coalesce(domain_or_task, '(none)') as d "
            "from conversations group by corpus, subset, language, d "
            "order by corpus, subset, language, d"
        ).fetchall()
        subsets = list(dict.fromkeys(b for b, _ in breakdown))
        domains = list(dict.fromkeys(d for _, d in breakdown))
        label_groups: dict[tuple, list[tuple[str, str]]] = {}
        for corpus, scheme, family, label in con.execute(
            "select corpus, label_scheme, intent_family, raw_label from intent_distribution "
            "order by corpus, label_scheme, n_labels desc, raw_label"
        ).fetchall():
            label_groups.setdefault((corpus, scheme), []).append((family, label))
    finally:
        con.close()
    assert len(domains) > 10, "the sample must have more domains than Vega's 10 default colours"

    # an assistant turn of the first conversation says Markdown: shown as text, never fetched
    with duckdb.connect(str(served)) as con:
        (hostile_turn,) = con.execute(
            "select min(turn_index) from turns where conversation_id = ? and role <> 'user'",
            [first_conv],
        ).fetchone()
        assert hostile_turn is not None, f"{first_conv} has no assistant turn"
        con.execute(
            "update turns set text = ? where conversation_id = ? and turn_index = ?",
            [HOSTILE_TEXT, first_conv, hostile_turn],
        )

    dash = dashboard_factory(served)
    page = chromium_browser.new_page(viewport={"width": 1400, "height": 1000})
    requested: list[str] = []
    page.on("request", lambda request: requested.append(request.url))
    shots: dict[str, Path] = {}
    failures: list[str] = []

    def check(name: str, fn) -> None:
        try:
            fn()
        except Exception as exc:  # noqa: BLE001 - collect every page's failure, then fail once
            failures.append(f"{name}: {type(exc).__name__}: {str(exc)[:600]}")
            try:
                shots[f"{name}-FAILED"] = screenshot(page, screenshot_dir, f"{name}-FAILED")
            except Exception as shot_exc:  # noqa: BLE001
                failures.append(f"{name}: (no failure screenshot: {shot_exc})")

    def urls() -> None:
        from csrwh.reading.dashboard import PAGES

        titles = {
            "overview": "Corpus overview",
            "conversations": "Conversation browser",
            "arena": "CRS Arena leaderboard",
            "intents": "Intents & agreement",
            "ratings": "Ratings by aspect",
            "search": "ConvSearch search behaviour",
            "health": "Data health",
            "leaderboard": "Run leaderboard",
        }
        assert sorted(titles) == sorted(p.url_path for p in PAGES)
        open_page(page, dash, "", "Corpus overview")  # / forwards to the first page's own URL
        assert page.url == f"{dash.base_url}/overview", page.url
        links = page.locator('[data-testid="stSidebarNav"] a')
        hrefs = sorted(links.nth(i).get_attribute("href") for i in range(links.count()))
        assert hrefs == sorted(f"{dash.base_url}/{p.url_path}" for p in PAGES), hrefs
        for spec in PAGES:
            open_page(page, dash, spec.url_path, titles[spec.url_path])
            assert page.url == f"{dash.base_url}/{spec.url_path}", page.url
            assert page.get_by_text("Page not found").count() == 0, spec.url_path
            no_exception(page)

    def overview() -> None:
        open_page(page, dash, "overview", "Corpus overview")
        no_exception(page)
        (chart,) = drawn_charts(page, 1)
        assert_colours_per_category(chart, domains)
        assert chart["ylabels"] == subsets, chart["ylabels"]  # one whole label per bar
        expect_text(metric(page, "Conversations"), fmt_int(n_conversations))
        expect_text(metric(page, "Utterances"), fmt_int(n_utterances))
        expect_text(metric(page, "Corpora"), fmt_int(len(corpora)))
        pick_multiselect(page, "Corpus", filter_corpus)  # the filter click
        expect_text(metric(page, "Conversations"), fmt_int(n_filtered))
        expect_text(metric(page, "Corpora"), "1")
        no_exception(page)
        shots["overview"] = screenshot(page, screenshot_dir, "overview")

    def conversations() -> None:
        open_page(page, dash, "conversations", "Conversation browser")
        no_exception(page)
        expect_contains(page, first_conv)
        expect_text(metric(page, "Utterances"), fmt_int(first_n_turns))
        assert page.locator('[data-testid="stChatMessage"]').count() == first_n_turns
        if first_label:
            expect_contains(page, first_label)
        messages = page.locator('[data-testid="stChatMessage"]')
        expect_contains(page, "# Big heading from the corpus")  # the text, as written
        expect_contains(page, f"![t]({LEAK_URL})")
        headings = messages.locator("h1, h2, h3, h4, h5, h6")
        assert headings.count() == 0, (
            f"corpus text rendered as headings: {headings.all_inner_texts()}"
        )
        assert messages.locator("img").count() == 0
        assert page.locator(f'img[src="{LEAK_URL}"]').count() == 0
        assert messages.locator("strong").count() == 0, "corpus Markdown rendered as bold"
        shots["conversations"] = screenshot(page, screenshot_dir, "conversations")

    def arena() -> None:
        open_page(page, dash, "arena", "CRS Arena leaderboard")
        no_exception(page)
        system, elo = boards["global"]
        expect_text(metric(page, "Leader (Elo)"), system)
        expect_text(metric(page, "Leader's Elo"), f"{elo:,.0f}")
        assert (
            page.locator('[data-testid="stVegaLiteChart"]').count() >= 2
        )  # intervals + head-to-head
        page.get_by_role("radio", name="open", exact=True).click()  # environment filter
        system, elo = boards["open"]
        expect_text(metric(page, "Leader (Elo)"), system)
        expect_text(metric(page, "Leader's Elo"), f"{elo:,.0f}")
        shots["arena"] = screenshot(page, screenshot_dir, "arena")

    def intents() -> None:
        open_page(page, dash, "intents", "Intents & agreement")
        no_exception(page)
        for (value,) in agreement:
            expect_contains(page, f"{value:,.3f}")
        drawn = drawn_charts(page, len(label_groups))
        for (group, rows), chart in zip(label_groups.items(), drawn):
            labels = [label for _, label in rows]
            # one whole label per bar (sorted by share, so compared as sets)
            assert len(chart["bars"]) == len(chart["ylabels"]) == len(labels), (group, chart)
            assert sorted(chart["ylabels"]) == sorted(labels), (group, chart["ylabels"])
            assert_colours_per_category(chart, list(dict.fromkeys(f for f, _ in rows)))
        shots["intents"] = screenshot(page, screenshot_dir, "intents")

    def ratings() -> None:
        open_page(page, dash, "ratings", "Ratings by aspect")
        no_exception(page)
        expect_text(metric(page, "Ratings"), fmt_int(n_ratings))
        expect_text(metric(page, "Aspects"), fmt_int(n_aspects))
        shots["ratings"] = screenshot(page, screenshot_dir, "ratings")

    def search() -> None:
        open_page(page, dash, "search", "ConvSearch search behaviour")
        no_exception(page)
        if n_queries:
            expect_text(metric(page, "Queries"), fmt_int(n_queries))
            expect_text(metric(page, "Landing pages"), fmt_int(n_landing))
            expect_contains(page, first_query)
        else:
            expect_contains(page, "No ConvSearch search behaviour in this warehouse")
        shots["search"] = screenshot(page, screenshot_dir, "search")

    def health() -> None:
        open_page(page, dash, "health", "Data health")
        no_exception(page)
        expect_contains(page, NO_DQ_TEXT)
        shots["health-no-results"] = screenshot(page, screenshot_dir, "health-no-results")
        # publish a new file under the running dashboard, the way `csrwh build` does
        staged = served.with_name(served.name + ".building")
        shutil.copy2(served, staged)
        expected = add_dq_results(staged)
        os.replace(staged, served)
        # no reload: the sidebar's watcher (every 10 s) notices the new file and reruns the page
        from playwright.sync_api import expect

        expect(metric(page, "Expectations")).to_have_text(fmt_int(expected["n"]), timeout=30_000)
        wait_idle(page)
        no_exception(page)
        expect_text(metric(page, "Expectations"), fmt_int(expected["n"]))
        expect_text(metric(page, "Passed"), fmt_int(expected["passed"]))
        expect_text(metric(page, "Critical failed"), fmt_int(expected["critical"]))
        expect_contains(page, expected["failed_name"])
        assert page.locator("text=" + NO_DQ_TEXT).count() == 0
        failed_rows = page.locator('[data-testid="stTable"]').first.locator("tbody tr")
        heights = [round(box["height"]) for box in (r.bounding_box() for r in failed_rows.all())]
        assert len(heights) == 2 and max(heights) <= MAX_ROW_PX, f"failed-table rows {heights} px"
        shots["health"] = screenshot(page, screenshot_dir, "health")

    for name, fn in [
        ("urls", urls),
        ("overview", overview),
        ("conversations", conversations),
        ("arena", arena),
        ("intents", intents),
        ("ratings", ratings),
        ("search", search),
        ("health", health),
    ]:
        check(name, fn)
    page.close()
    leaked = [url for url in requested if "csrwh-leak" in url]
    if leaked:
        failures.append(f"the browser requested an image named in corpus text: {leaked}")

    elapsed = time.monotonic() - started
    print(
        f"\ndashboard e2e: {len(shots)} screenshots in {screenshot_dir} ({elapsed:.1f}s in the browser part)"
    )
    assert not failures, (
        "dashboard pages failed:\n" + "\n".join(failures) + f"\nserver log: {dash.log}"
    )
    for name in ("overview", "conversations", "arena", "intents", "ratings", "search", "health"):
        assert shots[name].stat().st_size > 10_000, f"screenshot {name} looks empty"
