"""`csrwh report` (csrwh.reading.report.build_report) on the generated sample of all five corpora.

The sample is generated and built into a temporary warehouse once per module; the report runs
twice on it. Checked: every table under tables/ equals its golden file (tests/golden/report/,
test_report_golden.py) and, where the report computes more than a copy or a count, an
independent recomputation from the marts (tests/report_expected.py); input sha256
values equal hashes of the files, two runs give byte-identical tables and HTML identical but for the timestamp, the page is
self-contained, sections of corpora missing from a warehouse say so, and the page renders in
headless Chromium with no error (screenshot kept under reports/ci/ as a CI artefact).
"""

from __future__ import annotations

import csv
import math
import os
import re
import shutil
import struct
from pathlib import Path
from unittest import mock

import polars as pl
import pytest
from report_expected import assert_input_hashes, assert_report_tables_match
from test_report_golden import assert_matches_golden

from csrwh.config import PROJECT_ROOT
from csrwh.errors import CsrwhError
from csrwh.pipeline import build
from csrwh.reading import report
from csrwh.sample import generate
from ingest import registry

FOLDERS = {
    spec.folder: spec.name for spec in registry.CORPORA
}  # data folder -> corpus, every corpus
PUBLISHED = report.NOTEBOOK_DIR / "published_figures"
NOTEBOOK = report.NOTEBOOK_DIR / "statistics.py"
GENERATED_AT = re.compile(r'<span id="generated-at">[^<]*</span>')
ARTEFACTS = Path(os.environ.get("CSRWH_REPORT_ARTIFACTS") or PROJECT_ROOT / "reports" / "ci")


def _build(data: Path, warehouse: Path, target: Path, corpora: list[str] | None = None) -> None:
    with mock.patch.dict(os.environ, CSRWH_DBT_TARGET_PATH=str(target)):
        result = build(data, warehouse, corpora=corpora)
    assert result.published


@pytest.fixture(scope="module")
def sample(module_tmp_path: Path):
    root = module_tmp_path
    data = root / "data"
    generate(data, scale=1, seed=0)
    warehouse = root / "warehouse" / "demo.duckdb"
    _build(data, warehouse, root / "target")
    first = report.build_report(warehouse, root / "run1", progress=False)
    second = report.build_report(warehouse, root / "run2", progress=False)
    return data, warehouse, first, second


# --------------------------------------------------------------------------- on the sample


def test_every_table_matches_direct_sql_of_the_marts(sample) -> None:
    _, warehouse, first, _ = sample
    statuses = assert_report_tables_match(first.parent / "tables", warehouse, PUBLISHED)
    # all five corpora are in the sample, so no figure is reported as absent
    assert not [s for s in statuses.values() if "not present" in s]


def test_tables_equal_the_golden_files(sample) -> None:
    """Byte for byte, every table of the sample (tests/golden/report/; regenerate with
    test_report_golden.py --update after an intended change)."""
    _, _, first, _ = sample
    assert_matches_golden(first.parent / "tables")


def test_header_lists_sha256_of_every_input_file(sample) -> None:
    data, warehouse, first, _ = sample
    assert assert_input_hashes(first.parent / "tables", data, FOLDERS) > 20
    page = first.read_text(encoding="utf-8")
    import duckdb

    with duckdb.connect(str(warehouse), read_only=True) as con:
        build_id = con.execute("select build_id from build_info").fetchall()[0][0]
        hashes = [h for (h,) in con.execute("select file_sha256 from raw.ingest_files").fetchall()]
    assert build_id in page
    assert all(h in page for h in hashes)
    for package in ("duckdb", "polars", "matplotlib", "nbclient", "csrwh"):
        assert re.search(rf"{package} \d", page), package


def test_two_runs_give_identical_tables_and_page(sample) -> None:
    _, _, first, second = sample
    tables1 = sorted((first.parent / "tables").glob("*.csv"))
    tables2 = sorted((second.parent / "tables").glob("*.csv"))
    assert [p.name for p in tables1] == [p.name for p in tables2]
    for a, b in zip(tables1, tables2):
        assert a.read_bytes() == b.read_bytes(), a.name
    page1, page2 = first.read_text(encoding="utf-8"), second.read_text(encoding="utf-8")
    assert len(GENERATED_AT.findall(page1)) == 1
    assert GENERATED_AT.sub("", page1) == GENERATED_AT.sub("", page2)


def test_page_is_self_contained_with_every_section(sample) -> None:
    _, _, first, _ = sample
    page = first.read_text(encoding="utf-8")
    # nothing is fetched: no external script, stylesheet, image or font
    assert not re.search(r"<(script|img|link|iframe)[^>]+(src|href)=\"(?!data:|#)", page)
    assert "<link" not in page and "@import" not in page and "url(http" not in page
    images = re.findall(r'<img [^>]*src="data:image/png;base64,', page)
    assert len(images) >= 8
    for title in (
        "Corpus overview",
        "Published figures side by side",
        "Conversation and utterance lengths",
        "Intents and annotator agreement",
        "Quality ratings",
        "RecLLMSim: quality by number of user turns",
        "CRS Arena",
        "ConvSearch search behaviour",
        "CoSRec relevance judgments",
        "RecoReact ratings and selections by round and domain",
    ):
        assert title in page, title
    assert "</strong> corpus not present in this warehouse." not in page
    assert "Traceback" not in page and "output_error" not in page


def test_table_of_contents_links_to_every_section(sample) -> None:
    _, _, first, _ = sample
    page = first.read_text(encoding="utf-8")
    toc = re.search(r'<nav class="toc">(.*?)</nav>', page, re.DOTALL)
    assert toc, "no table of contents"
    targets = re.findall(r'href="#([^"]+)"', toc.group(1))
    ids = re.findall(r'<h[1-6] id="([^"]+)"', page)
    assert len(ids) == len(set(ids)), "duplicate heading ids"
    sections = re.findall(r"^# ## (.+)$", NOTEBOOK.read_text(encoding="utf-8"), re.MULTILINE)
    assert len(targets) == len(sections) >= 10
    assert set(targets) <= set(ids), sorted(set(targets) - set(ids))


def test_export_body_writes_markdown_and_outputs_without_code() -> None:
    import nbformat

    nb = nbformat.v4.new_notebook(
        cells=[
            nbformat.v4.new_markdown_cell(
                "## 1. A section\n\nText with `code` and <em>html</em>.\n\n## 1. A section"
            ),
            nbformat.v4.new_code_cell(
                "secret_source_line = 1",
                outputs=[
                    nbformat.v4.new_output(
                        "display_data",
                        data={"text/html": "<p class='x'>kept</p>", "text/plain": "no"},
                    ),
                    nbformat.v4.new_output("stream", name="stdout", text="a < b\n"),
                    nbformat.v4.new_output("display_data", data={"image/png": "iVBORw0KGgo="}),
                    nbformat.v4.new_output(
                        "execute_result", data={"text/plain": "[1, 2]"}, execution_count=1
                    ),
                ],
            ),
        ]
    )
    body, headings = report._export_body(nb)
    assert body == report._export_body(nb)[0]  # deterministic
    assert "secret_source_line" not in body
    assert '<h2 id="1-a-section">1. A section</h2>' in body and '<h2 id="1-a-section-2">' in body
    assert headings == [(2, "1-a-section", "1. A section"), (2, "1-a-section-2", "1. A section")]
    assert "<code>code</code>" in body and "<em>html</em>" in body
    assert "<p class='x'>kept</p>" in body and ">no<" not in body  # rich output preferred
    assert "<pre>a &lt; b\n</pre>" in body and "<pre>[1, 2]</pre>" in body
    assert 'src="data:image/png;base64,iVBORw0KGgo="' in body


def test_page_renders_in_headless_chromium(sample) -> None:
    _, _, first, _ = sample
    check = _render_or_skip(first, first.parent / "statistics.png")
    assert check.status == "ok", check.status
    assert check.console == []
    assert check.images >= 8
    width, height = _png_size(check.screenshot)
    assert (width, height) == (1280, 2000)
    _keep_artefacts(first, check.screenshot, "sample")


# --------------------------------------------------------------------------- absent corpora


def test_sections_of_absent_corpora_say_so(sample, tmp_path: Path) -> None:
    data, _, _, _ = sample
    warehouse = tmp_path / "only_crsarena.duckdb"
    _build(data, warehouse, tmp_path / "target", corpora=["crsarena"])
    page = report.build_report(warehouse, tmp_path / "out", progress=False)
    text = page.read_text(encoding="utf-8")
    for name in ("RecLLMSim", "ConvSearch", "RecoReact", "CoSRec"):
        assert f"<strong>{name}:</strong> corpus not present in this warehouse." in text, name
    assert "<strong>CRSArena-Dial:</strong> corpus not present" not in text
    statuses = assert_report_tables_match(page.parent / "tables", warehouse, PUBLISHED)
    for figure_id, status in statuses.items():
        if not figure_id.startswith("crsarena."):
            assert status == "corpus not present in this warehouse", (figure_id, status)
    # tables of absent corpora exist, with their header only
    for name, header in (
        ("convsearch_dwell_times", "page_kind,"),
        ("recoreact_rounds", "domain,round,"),
        ("cosrec_relevance_grades", "judgment_kind,grade,"),
    ):
        lines = (page.parent / "tables" / f"{name}.csv").read_text(encoding="utf-8").splitlines()
        assert len(lines) == 1 and lines[0].startswith(header), name


# --------------------------------------------------------------------------- failures


def test_missing_warehouse_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(CsrwhError, match="does not exist"):
        report.build_report(tmp_path / "nope.duckdb", tmp_path / "out", progress=False)


def test_failing_notebook_names_the_notebook_and_the_error(tmp_path: Path) -> None:
    notebook = tmp_path / "broken.py"
    notebook.write_text(
        '# %% [markdown]\n# ## A section\n\n# %%\nraise ValueError("boom in cell")\n',
        encoding="utf-8",
    )
    warehouse = tmp_path / "any.duckdb"
    warehouse.write_bytes(b"")
    with pytest.raises(CsrwhError, match=r"broken\.py.*boom in cell"):
        report.build_report(warehouse, tmp_path / "out", notebooks=[notebook], progress=False)


# --------------------------------------------------------------------------- helpers and data


def test_write_table_is_fixed_format_and_stable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(report.ENV_TABLES, str(tmp_path))
    frame = pl.DataFrame(
        {
            "k": ["b", "a"],
            "n": [1, 2],
            "x": [1 / 3, -0.0],
            "y": [float("nan"), None],
            "s": ["1,5", 'ü"q'],
        }
    )
    path = report.write_table(frame, "t")
    assert path.read_bytes() == (b'k,n,x,y,s\nb,1,0.333333,,"1,5"\na,2,0.000000,,"\xc3\xbc""q"\n')
    report.write_table(frame, "t2")
    assert (tmp_path / "t2.csv").read_bytes() == path.read_bytes()


def test_table_html_formats_and_escapes_deterministically() -> None:
    frame = pl.DataFrame(
        {
            "name": ["<b>", None],
            "n": [1234, 5],
            "v": [0.5, float("nan")],
            "status": ["match", "differs x"],
        }
    )
    html = report.table_html(frame, decimals=2, row_class="status")
    assert html == report.table_html(frame, decimals=2, row_class="status")
    assert "&lt;b&gt;" in html and "<b>" not in html
    assert ">1,234<" in html and ">0.50<" in html and html.count(">–<") == 2
    assert 'class="status-match"' in html and 'class="status-differs"' in html
    assert " id=" not in html


def test_count_columns_print_as_integers() -> None:
    frame = pl.DataFrame(
        {
            "n_judgments": [15150.0, 2.0],
            "mean_judged": [3.0, 2.5],
            "n_raters_mean": [4.0, 4.5],
            "n_partial": [1.0, 2.5],
        }
    )
    html = report.table_html(frame, decimals=2)
    assert ">15,150<" in html and ">2<" in html  # a count, whole: no decimals
    assert ">3.00<" in html and ">4.00<" in html  # means stay fractional
    assert ">1.00<" in html and ">2.50<" in html  # not every value whole: left as is


def test_wide_tables_get_a_visible_scroll_cue(tmp_path: Path) -> None:
    wide = pl.DataFrame({f"column_{i}": ["a value that takes room"] for i in range(40)})
    narrow = pl.DataFrame({"a": [1]})
    page = tmp_path / "page.html"
    page.write_text(
        report._page([report.table_html(wide), report.table_html(narrow)], []), encoding="utf-8"
    )
    check = _render_or_skip(page, tmp_path / "page.png")
    assert check.status == "ok" and check.console == []
    assert check.scrolling == 1


def test_inputs_digest_ignores_order() -> None:
    rows = [("a", "x.json", "1" * 64), ("b", "y.json", "2" * 64)]
    assert report.inputs_digest(rows) == report.inputs_digest(list(reversed(rows)))
    assert report.inputs_digest(rows) != report.inputs_digest(rows[:1])


def test_published_figures_are_well_formed_data() -> None:
    from csrwh.reading import figures

    files = sorted(p.stem for p in PUBLISHED.glob("*.csv"))
    assert files == sorted(figures.CORPORA), files
    for path in PUBLISHED.glob("*.csv"):
        with open(path, encoding="utf-8", newline="") as fh:
            reader = csv.DictReader(fh)
            assert reader.fieldnames == figures.COLUMNS, path
            assert all(r["corpus"] == path.stem for r in reader), path
    rows = figures.load_published()
    ids = [r["figure_id"] for r in rows]
    assert len(ids) == len(set(ids))
    registry = figures.metrics()
    for r in rows:
        assert r["corpus"] in report.CORPUS_NAMES, r
        assert r["figure_id"].startswith(r["corpus"] + "."), r
        assert math.isfinite(float(r["published"])) and int(r["precision"]) in range(-6, 7), r
        assert r["source"].strip() and r["figure"].strip(), r
        assert all("=" in part for part in r["args"].split(";") if part), r
        if r["metric"]:
            assert r["metric"] in registry, r["metric"]
        else:
            assert r["explanation"].startswith("Not derivable"), r
        if r["alt_metric"]:
            assert r["alt_metric"] in registry and r["alt_figure"] and r["explanation"], r
    # the figures the issue names
    by_id = {r["figure_id"]: r for r in rows}
    assert by_id["crsarena.votes"]["published"] == "187"
    assert by_id["cosrec.crowd.utterances"]["published"] == "2329"
    assert by_id["cosrec.curated.utterances"]["published"] == "150"
    assert by_id["convsearch.dialogues"]["published"] == "1131"
    assert by_id["recoreact.impressions"]["published"] == "1785"
    assert sum(1 for i in ids if i.startswith("crsarena.elo.")) == 27


def test_notebook_is_jupytext_percent_without_outputs() -> None:
    import jupytext

    text = NOTEBOOK.read_text(encoding="utf-8")
    assert "format_name: percent" in text and text.count("# %%") >= 10
    nb = jupytext.read(NOTEBOOK)
    assert all(not cell.get("outputs") for cell in nb.cells if cell.cell_type == "code")
    # notebooks read the marts only (plus build_info / raw.ingest_files for provenance)
    assert not re.search(r"\braw\.(?!ingest_files)\w+", text)
    assert "read_json" not in text and "open(" not in text
    # so do the per-corpus figure modules it calls
    for module in sorted((PROJECT_ROOT / "csrwh" / "figures").glob("*.py")):
        code = module.read_text(encoding="utf-8")
        assert not re.search(r"\braw\.(?!ingest_files)\w+", code), module
        assert "read_json" not in code and "open(" not in code.replace("open(path", ""), module


# --------------------------------------------------------------------------- shared with the real test


def _render_or_skip(page: Path, screenshot: Path) -> report.RenderCheck:
    if report.find_chromium() is None:
        if os.environ.get("CI"):
            pytest.fail(
                "chromium not found (CI is set, so this is an error): apt-get install -y chromium"
            )
        pytest.skip(
            "chromium not found: install it with apt-get install -y chromium to run the render check"
        )
    return report.check_render(page, screenshot)


def _png_size(path: Path) -> tuple[int, int]:
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    return struct.unpack(">II", data[16:24])


def _keep_artefacts(page: Path, screenshot: Path, name: str) -> None:
    """Copy the page, its screenshot and tables to reports/ci/<name>/ (CI artefact)."""
    target = ARTEFACTS / name
    if target.exists():
        shutil.rmtree(target)
    target.mkdir(parents=True)
    shutil.copy2(page, target / page.name)
    shutil.copy2(screenshot, target / "statistics.png")
    shutil.copytree(page.parent / "tables", target / "tables")


def test_folded_block_keeps_every_output_under_one_details(tmp_path: Path) -> None:
    """R.folded (section 10): what the block displays lands in the page inside one <details>
    whose summary counts its tables and figures."""
    notebook = tmp_path / "fold.py"
    notebook.write_text(
        "# %%\nimport matplotlib.pyplot as plt\nimport polars as pl\n\nfrom csrwh.reading import report as R\n\n"
        'with R.folded("Inside <b>"):\n'
        '    R.show_table(pl.DataFrame({"a": [1, 2]}))\n'
        '    R.show_html("<p>between</p>")\n'
        "    fig, ax = plt.subplots(figsize=(2, 1))\n"
        '    R.show_figure(fig, alt="a plot")\n'
        'R.show_html("<p>after</p>")\n',
        encoding="utf-8",
    )
    warehouse = tmp_path / "any.duckdb"
    warehouse.write_bytes(b"")
    page = report.build_report(warehouse, tmp_path / "out", notebooks=[notebook], progress=False)
    text = page.read_text(encoding="utf-8")
    start = text.index('<details class="fold"><summary>Inside &lt;b&gt; (1 tables, 1 figures)')
    end = text.index("</details>", start)
    inside = text[start:end]
    assert "<table" in inside and "<p>between</p>" in inside and 'alt="a plot"' in inside
    assert text.index("<p>after</p>") > end
