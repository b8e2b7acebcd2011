"""The dashboard's launcher, and every page script run headless (Streamlit AppTest, no browser) on
the small hand-made warehouse of tests/unit/dashboard_warehouse.py."""

from __future__ import annotations

import re
from pathlib import Path

import duckdb
import pytest
from dashboard_warehouse import make_warehouse

from csrwh.config import PROJECT_ROOT
from csrwh.errors import CsrwhError
from csrwh.reading.dashboard import PAGES, PAGES_DIR, streamlit_command
from csrwh.reading.dashboard import queries as q


@pytest.fixture()
def wh(tmp_path: Path) -> q.Warehouse:
    return q.Warehouse(make_warehouse(tmp_path / "wh.duckdb"))


@pytest.fixture()
def db(wh: q.Warehouse):
    with wh.open() as reader:
        yield reader


# ---------------------------------------------------------------------------------------------
# launcher and pages
# ---------------------------------------------------------------------------------------------


def test_streamlit_command_is_local_headless_and_without_telemetry() -> None:
    cmd = streamlit_command(port=9999)
    args = dict(zip(cmd[5::2], cmd[6::2]))
    assert cmd[1:4] == ["-m", "streamlit", "run"]
    assert args["--server.address"] == "127.0.0.1" and args["--server.port"] == "9999"
    assert args["--server.headless"] == "true"
    assert args["--browser.gatherUsageStats"] == "false"
    assert (
        dict(
            zip(
                streamlit_command(open_browser=True)[5::2],
                streamlit_command(open_browser=True)[6::2],
            )
        )["--server.headless"]
        == "false"
    )


def test_serve_refuses_a_missing_warehouse(tmp_path: Path) -> None:
    from csrwh.reading.dashboard import serve

    with pytest.raises(CsrwhError, match="does not exist"):
        serve(tmp_path / "absent.duckdb")


def test_pages_exist_and_are_not_in_a_streamlit_pages_folder() -> None:
    assert PAGES_DIR.name != "pages"  # Streamlit would auto-discover pages/ and bypass the app
    for spec in PAGES:
        assert spec.path.is_file(), spec
    assert len({p.url_path for p in PAGES}) == len(PAGES)


def _run_page(file: str, warehouse: Path, monkeypatch: pytest.MonkeyPatch):
    pytest.importorskip("streamlit")
    from streamlit.testing.v1 import AppTest

    monkeypatch.setenv("CSRWH_WAREHOUSE", str(warehouse))
    at = AppTest.from_file(str(PAGES_DIR / file), default_timeout=60)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def _metrics(at) -> dict[str, str]:
    return {m.label: m.value for m in at.metric}


@pytest.mark.parametrize("dq", [False, True])
def test_every_page_renders_on_the_small_warehouse(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, dq: bool
) -> None:
    path = make_warehouse(tmp_path / "pages.duckdb", dq=dq, rejected=dq)
    for spec in PAGES:
        _run_page(spec.file, path, monkeypatch)
    overview = _run_page("overview.py", path, monkeypatch)
    assert _metrics(overview)["Conversations"] == "6"
    overview.multiselect(key="overview_corpus").set_value(["crsarena"]).run()
    assert _metrics(overview)["Conversations"] == "2"
    arena = _run_page("arena.py", path, monkeypatch)
    assert _metrics(arena)["Leader (Elo)"] == "chatgpt"
    health = _run_page("health.py", path, monkeypatch)
    markdown = " ".join(str(e.value) for e in [*health.info, *health.success])
    if dq:
        assert _metrics(health)["Expectations"] == "3"
    else:
        assert "No data-quality results in this warehouse" in markdown


def test_pages_say_what_is_missing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = make_warehouse(tmp_path / "nosearch.duckdb", empty_search=True)
    search = _run_page("search.py", path, monkeypatch)
    assert any("No ConvSearch search behaviour" in str(i.value) for i in search.info)
    missing = tmp_path / "absent.duckdb"
    page = _run_page("overview.py", missing, monkeypatch)
    assert any("does not exist" in str(e.value) for e in page.error)


def test_conversation_page_searches_and_opens(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = make_warehouse(tmp_path / "browse.duckdb")
    at = _run_page("conversations.py", path, monkeypatch)
    assert at.selectbox(key="browse_open").value == "convsearch:10"
    at.text_input(key="browse_text").input("thriller").run()
    assert at.selectbox(key="browse_open").value == "cosrec:A"
    assert _metrics(at)["Utterances"] == "4"
    assert len(at.chat_message) == 4
    # the Markdown source, its backslash escapes (corpus text is escaped) resolved as rendered
    text = re.sub(r"\\(.)", r"\1", " ".join(str(m.value) for m in at.markdown))
    assert "crowd_1: search" in text and "request/search" in text


def test_a_long_message_is_cut_with_a_toggle_to_see_it_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = make_warehouse(tmp_path / "long.duckdb")
    long_text = ("word " * 1_000_000).strip()  # 5 MB
    with duckdb.connect(str(path)) as con:
        con.execute(
            "update main.turns set text = ? where conversation_id = 'convsearch:10' "
            "and turn_index = 0",
            [long_text],
        )
    at = _run_page("conversations.py", path, monkeypatch)
    assert at.selectbox(key="browse_open").value == "convsearch:10"
    shown = max((t.value for t in at.text), key=len)
    assert len(shown) < len(long_text) / 100 and long_text.startswith(shown[:-2])
    (toggle,) = [t for t in at.toggle if "Show the whole text" in t.label]
    assert f"({len(long_text):,} characters)" in toggle.label
    toggle.set_value(True).run()
    assert max(len(t.value) for t in at.text) == len(long_text)


def test_conversation_deep_link_opens_and_search_replaces_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("streamlit")
    from streamlit.testing.v1 import AppTest

    monkeypatch.setenv("CSRWH_WAREHOUSE", str(make_warehouse(tmp_path / "link.duckdb")))
    at = AppTest.from_file(str(PAGES_DIR / "conversations.py"), default_timeout=60)
    at.query_params["conversation"] = "crsarena:x2"
    at.run()
    assert not at.exception
    assert at.selectbox(key="browse_open").value == "crsarena:x2"
    assert _metrics(at)["Utterances"] == "2"
    at.text_input(key="browse_text").input("thriller").run()
    assert at.selectbox(key="browse_open").value == "cosrec:A"
    assert "conversation" not in at.query_params


def test_query_layer_does_not_import_streamlit() -> None:
    import subprocess
    import sys

    code = "import sys, csrwh.reading.dashboard, csrwh.reading.dashboard.queries; print('streamlit' in sys.modules)"
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert out.strip() == "False"


def test_reading_never_modifies_the_published_file(wh: q.Warehouse) -> None:
    """Opening the published file never modifies it (no WAL, same bytes)."""
    before = wh.path.read_bytes()
    with wh.open() as db:
        q.overview(db)
        q.search_conversations(db, "thriller")
    assert wh.path.read_bytes() == before
    assert not Path(str(wh.path) + ".wal").exists()


def test_dashboard_reads_marts_only() -> None:
    """No query of the dashboard names a raw table (docs/ARCHITECTURE.md: consumers read marts;
    main.dq_results and build_info are the build's bookkeeping tables)."""
    package = PROJECT_ROOT / "csrwh" / "dashboard"
    for path in sorted(package.rglob("*.py")):
        code = path.read_text(encoding="utf-8")
        assert not re.search(r"\braw\.\w+", code), f"{path}: reads a raw table"


@pytest.mark.parametrize(
    "text",
    [
        "# Big heading\n\n![t](http://127.0.0.1:9/leak.png) **bold** <img src=x> $x^2$",
        "[click](javascript:alert(1)) | a | b |\n|---|---|\n- item\n1. one\n> quote\n`code`",
    ],
)
def test_escaped_corpus_text_renders_as_itself(text: str) -> None:
    """ui.escape_md: a CommonMark renderer makes no image, link, heading, list, table, emphasis,
    code or HTML of corpus text, and shows every character of it."""
    from html import unescape

    from markdown_it import MarkdownIt

    from csrwh.reading.dashboard import ui

    rendered = MarkdownIt("commonmark").enable("table").render(ui.escape_md(text))
    for tag in (
        "<img",
        "<a ",
        "<h1",
        "<strong",
        "<em",
        "<ul",
        "<ol",
        "<table",
        "<code",
        "<blockquote",
    ):
        assert tag not in rendered, (tag, rendered)
    plain = unescape(re.sub(r"<[^>]+>", "", rendered))
    assert re.sub(r"\s+", " ", plain).strip() == re.sub(r"\s+", " ", text).strip()


def test_corpus_urls_make_one_link_and_no_image() -> None:
    from markdown_it import MarkdownIt

    from csrwh.reading.dashboard import ui

    url = "http://example.org/a b) ![t](http://127.0.0.1:9/leak.png"
    rendered = MarkdownIt("commonmark").enable("table").render(ui.md_link("label ![x](y)", url))
    assert "<img" not in rendered and rendered.count("<a ") == 1, rendered
    assert 'href="http://example.org/a%20b%29%20!%5Bt%5D%28http://127.0.0.1:9/leak.png"' in rendered
    assert ui.md_link("x", "javascript:alert(1)") == "x"


def _renders_no_link_or_image(values: list[str]) -> list[str]:
    """The values among ``values`` that CommonMark renders with an image, link or HTML."""
    from markdown_it import MarkdownIt

    md = MarkdownIt("commonmark")
    return [v for v in values if re.search(r"<(img|a|script|h\d)\b", md.render(v))]


def test_an_id_holding_markdown_is_shown_as_text(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A conversation id is text in the browser's heading: an image in it is never fetched."""
    import duckdb

    hostile = "cosrec:![p](http://127.0.0.1:9999/x.png)"
    path = make_warehouse(tmp_path / "hostile.duckdb")
    with duckdb.connect(str(path)) as con:
        con.execute(
            "insert into main.conversations select * replace (? as conversation_id) "
            "from main.conversations where conversation_id = 'cosrec:A'",
            [hostile],
        )
        con.execute(
            "insert into main.turns select * replace (? as conversation_id) "
            "from main.turns where conversation_id = 'cosrec:A'",
            [hostile],
        )
    pytest.importorskip("streamlit")
    from streamlit.testing.v1 import AppTest

    monkeypatch.setenv("CSRWH_WAREHOUSE", str(path))
    at = AppTest.from_file(str(PAGES_DIR / "conversations.py"), default_timeout=60)
    at.query_params["conversation"] = hostile
    at.run()
    assert not at.exception
    assert at.selectbox(key="browse_open").value == hostile
    shown = [str(e.value) for e in [*at.subheader, *at.markdown, *at.warning, *at.caption]]
    assert any(hostile in re.sub(r"\\(.)", r"\1", v) for v in shown)  # the id is on the page...
    assert _renders_no_link_or_image(shown) == []  # ...as text
