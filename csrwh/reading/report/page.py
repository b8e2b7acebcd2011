"""The report page: executed notebooks to one self-contained HTML page (markdown cells and
outputs, no code; tables as HTML, plots as base64 PNG; a small inline status script)."""

from __future__ import annotations

import html
import re
from collections.abc import Sequence
from typing import Any

from csrwh.reading.report.settings import REPORT_MARKER


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
_TAG = re.compile(r"<[^>]+>")


def _text(value: Any) -> str:
    """A notebook string field (a string, or a list of lines once read from a file)."""
    return "".join(value) if isinstance(value, list) else str(value)


def _markdown_renderer(headings: list[tuple[int, str, str]]):
    """Markdown -> HTML (raw HTML passes through) whose headings carry ids: ``_slug`` of the
    heading's text, made unique with ``-2``, ``-3``...; level-2 headings go to ``headings``
    (the table of contents) as ``(2, id, text)``."""
    import mistune

    used: dict[str, int] = {}

    class Renderer(mistune.HTMLRenderer):
        def heading(self, text: str, level: int, **attrs: Any) -> str:
            plain = html.unescape(_TAG.sub("", text)).strip()
            anchor = _slug(plain) or "section"
            used[anchor] = used.get(anchor, 0) + 1
            if used[anchor] > 1:
                anchor = f"{anchor}-{used[anchor]}"
            if level == 2:
                headings.append((level, anchor, plain))
            return f'<h{level} id="{anchor}">{text}</h{level}>\n'

    return mistune.create_markdown(
        renderer=Renderer(escape=False), plugins=["table", "strikethrough"]
    )


def _output_html(output: Any, markdown) -> str:
    """One cell output as HTML: rich HTML as it is, PNGs as data URIs, text escaped."""
    kind = output.get("output_type")
    if kind in ("display_data", "execute_result"):
        data = output.get("data", {})
        if "text/html" in data:
            inner = _text(data["text/html"])
        elif "image/png" in data:
            inner = f'<img alt="" src="data:image/png;base64,{_text(data["image/png"]).strip()}">'
        elif "text/markdown" in data:
            inner = markdown(_text(data["text/markdown"]))
        elif "text/plain" in data:
            inner = f"<pre>{html.escape(_text(data['text/plain']))}</pre>"
        else:
            return ""
    elif kind == "stream":
        inner = f"<pre>{html.escape(_text(output.get('text', '')))}</pre>"
    elif kind == "error":  # only with allow_errors; build_report stops on an error
        trace = _ANSI.sub("", "\n".join(_text(line) for line in output.get("traceback", [])))
        inner = f'<pre class="cell-error">{html.escape(trace)}</pre>'
    else:
        return ""
    return f'<div class="output">{inner}</div>'


def _export_body(nb: Any) -> tuple[str, list[tuple[int, str, str]]]:
    """Notebook -> HTML fragment (markdown cells and code outputs, no code, no prompts) and its
    level-2 headings ``(2, id, title)`` for the table of contents.

    Written here rather than by nbconvert's HTML exporter, which re-parses the finished page
    with BeautifulSoup (3 s of the report's run on the real corpora, its import 1.7 s); the
    page only needs markdown, HTML outputs and images."""
    headings: list[tuple[int, str, str]] = []
    markdown = _markdown_renderer(headings)
    parts = []
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            parts.append(f'<div class="markdown">{markdown(_text(cell.source))}</div>')
        elif cell.cell_type == "code":
            parts.extend(filter(None, (_output_html(o, markdown) for o in cell.get("outputs", []))))
    return "\n".join(parts), headings


_CSS = """
:root { --fg:#1d2125; --muted:#5b6670; --line:#d9dee3; --head:#f3f5f7; --accent:#2f5d8a; }
* { box-sizing: border-box; }
body { font-family: "DejaVu Sans", "Helvetica Neue", Arial, sans-serif; color: var(--fg);
       margin: 0; line-height: 1.45; font-size: 14px; background: #fff; }
main { max-width: 1180px; margin: 0 auto; padding: 24px 32px 64px; }
h1 { font-size: 26px; margin: 8px 0 4px; }
h2 { font-size: 20px; margin: 36px 0 8px; padding-top: 8px; border-top: 2px solid var(--line); }
h3 { font-size: 16px; margin: 22px 0 6px; }
a { color: var(--accent); }
p, li { max-width: 960px; }
nav.toc { background: var(--head); border: 1px solid var(--line); padding: 8px 16px; margin: 12px 0; }
nav.toc ol { margin: 4px 0; padding-left: 22px; columns: 2; }
.table-wrap { max-width: 100%; overflow-x: auto; }
/* set by the load script on a table wider than the page: a visible cue that it scrolls */
.table-wrap.scrolls { border-right: 3px solid var(--accent); box-shadow: inset -12px 0 10px -10px rgba(0,0,0,.35); }
.scroll-cue { color: var(--accent); font-size: 12px; margin: 6px 0 -4px; }
table.report { border-collapse: collapse; margin: 8px 0 16px; font-size: 12.5px; }
table.report th, table.report td { border: 1px solid var(--line); padding: 3px 8px; }
table.report th { background: var(--head); text-align: left; font-weight: 600; }
table.report td.figure { min-width: 300px; }
/* section 2: room for the words, not one word per line (explanations were ~190 px a row) */
table.report.comparison td.figure { min-width: 220px; }
table.report.comparison td.definition, table.report.comparison td.explanation { min-width: 260px; }
table.report.comparison td.status { min-width: 90px; }
table.published-overview td.num { min-width: 70px; }
details.absent { border-left: 4px solid #c9a227; background: #fffbe6; padding: 6px 12px; margin: 8px 0; }
details.absent summary { color: var(--fg); }
details.fold > summary, details.all-figures > summary { font-weight: 600; }
table.report td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
table.report td.null { color: var(--muted); text-align: center; }
tr.status-differs td { background: #fff1f0; }
tr.status-explained td { background: #fffbe6; }
tr.status-match td.status { color: #1d6b36; }
.absent { border-left: 4px solid #c9a227; background: #fffbe6; padding: 6px 12px; margin: 8px 0; }
.provenance dt { font-weight: 600; float: left; clear: left; width: 170px; }
.provenance dd { margin-left: 180px; margin-bottom: 2px; font-family: "DejaVu Sans Mono", monospace; font-size: 12.5px; word-break: break-all; }
details { margin: 6px 0 12px; }
details summary { cursor: pointer; color: var(--accent); }
code, .mono { font-family: "DejaVu Sans Mono", monospace; font-size: 12.5px; }
img { max-width: 100%; height: auto; display: block; margin: 6px 0 14px; }
.output pre { white-space: pre-wrap; font-size: 12.5px; }
.caption { color: var(--muted); font-size: 12.5px; margin-top: -8px; }
footer { color: var(--muted); font-size: 12px; margin-top: 48px; }
"""

# Sets body[data-report-status] once the page loaded: "ok", or why not (a script error,
# an image that did not decode). A headless browser reads it with --dump-dom.
_STATUS_SCRIPT = """
(function () {
  var problems = [];
  window.addEventListener("error", function (e) {
    problems.push("error: " + (e.message || (e.target && (e.target.src || e.target.href)) || "unknown"));
  }, true);
  window.addEventListener("load", function () {
    var wraps = document.querySelectorAll(".table-wrap"), scrolling = 0;
    for (var w = 0; w < wraps.length; w++) {
      if (wraps[w].scrollWidth > wraps[w].clientWidth + 1) {
        scrolling++;
        wraps[w].className += " scrolls";
        var cue = document.createElement("p");
        cue.className = "scroll-cue";
        cue.textContent = "\u21c6 wider than the page: scroll sideways for more columns";
        wraps[w].parentNode.insertBefore(cue, wraps[w]);
      }
    }
    var imgs = document.images, broken = 0;
    for (var i = 0; i < imgs.length; i++) {
      if (!imgs[i].complete || imgs[i].naturalWidth === 0) { broken++; }
    }
    if (broken) { problems.push(broken + " image(s) did not render"); }
    var status = problems.length ? problems.join("; ") : "ok";
    document.body.setAttribute("data-report-status", status);
    document.body.setAttribute("data-report-images", String(imgs.length));
    document.body.setAttribute("data-report-scrolling", String(scrolling));
    var el = document.getElementById("render-status");
    if (el) { el.textContent = status === "ok" ? "rendered" : status; }
  });
})();
"""


def _page(bodies: Sequence[str], toc: Sequence[tuple[int, str, str]]) -> str:
    items = "".join(
        f'<li><a href="#{html.escape(anchor)}">{html.escape(title)}</a></li>'
        for _, anchor, title in toc
    )
    nav = f'<nav class="toc"><strong>Contents</strong><ol>{items}</ol></nav>' if items else ""
    body = "\n".join(bodies)
    # the TOC goes after the first section (title + provenance) of the first notebook
    marker = '<div id="toc-here"></div>'
    body = body.replace(marker, nav, 1) if marker in body else nav + body
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        "<title>CSR Warehouse statistics report</title>\n"
        f'<style>{_CSS}</style>\n</head>\n<body data-report-status="loading">\n<main>\n'
        f"{body}\n"
        f"<footer>{REPORT_MARKER} from the warehouse marts. "
        'Render check: <span id="render-status">not run</span>.</footer>\n'
        f"</main>\n<script>{_STATUS_SCRIPT}</script>\n</body>\n</html>\n"
    )
