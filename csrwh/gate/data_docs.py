"""Great Expectations Data Docs that render offline, one folder per warehouse.

:func:`localise` points the pages at vendored copies of the stylesheets and scripts GX links
from CDNs; the Data Docs live in ``<warehouse>.data_docs/``, and a refused or interrupted build
never replaces the published warehouse's.
Details: docs/internals.md#csrwh-gate-data_docs
"""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

ASSETS_DIR = Path(__file__).resolve().parent / "data_docs_assets"
VENDOR = "static/vendor"
SUFFIX = ".data_docs"

#: npm package (name@version) -> files taken from it (paths inside the package)
PACKAGES: dict[str, tuple[str, ...]] = {
    "bootstrap@4.3.1": ("dist/css/bootstrap.min.css", "dist/js/bootstrap.min.js", "LICENSE"),
    "@forevolve/bootstrap-dark@1.1.0": ("dist/css/bootstrap-prefers-dark.min.css", "LICENSE"),
    "bootstrap-datepicker@1.9.0": (
        "dist/css/bootstrap-datepicker.min.css",
        "dist/js/bootstrap-datepicker.min.js",
        "LICENSE",
    ),
    # the woff2 fonts only (the stylesheet names woff2 first; every current browser takes it)
    "@fortawesome/fontawesome-free@6.6.0": (
        "css/all.min.css",
        "webfonts/fa-brands-400.woff2",
        "webfonts/fa-regular-400.woff2",
        "webfonts/fa-solid-900.woff2",
        "webfonts/fa-v4compatibility.woff2",
        "LICENSE.txt",
    ),
    "bootstrap-table@1.19.1": (
        "dist/bootstrap-table.min.css",
        "dist/bootstrap-table.min.js",
        "dist/extensions/filter-control/bootstrap-table-filter-control.css",
        "dist/extensions/filter-control/bootstrap-table-filter-control.min.css",
        "dist/extensions/filter-control/bootstrap-table-filter-control.min.js",
        "LICENSE",
    ),
    "vega@5.33.1": ("build/vega.min.js",),
    "vega-lite@5.23.0": ("build/vega-lite.min.js", "LICENSE"),
    "vega-embed@6.29.0": ("build/vega-embed.min.js", "LICENSE"),
    "popper.js@1.12.9": ("dist/umd/popper.min.js",),
    "jquery@3.7.1": ("dist/jquery.min.js", "LICENSE.txt"),
}

#: every CDN address GX's templates link (great_expectations/render/view/templates) -> the
#: vendored file (package folder / path) that replaces it
CDN: dict[str, str] = {
    "https://maxcdn.bootstrapcdn.com/bootstrap/4.3.1/css/bootstrap.min.css": "bootstrap/dist/css/bootstrap.min.css",
    "https://stackpath.bootstrapcdn.com/bootstrap/4.3.1/js/bootstrap.min.js": "bootstrap/dist/js/bootstrap.min.js",
    "https://cdn.jsdelivr.net/npm/@forevolve/bootstrap-dark@1.1.0/dist/css/bootstrap-prefers-dark.css": "forevolve-bootstrap-dark/dist/css/bootstrap-prefers-dark.min.css",
    "https://cdnjs.cloudflare.com/ajax/libs/bootstrap-datepicker/1.9.0/css/bootstrap-datepicker.min.css": "bootstrap-datepicker/dist/css/bootstrap-datepicker.min.css",
    "https://cdnjs.cloudflare.com/ajax/libs/bootstrap-datepicker/1.9.0/js/bootstrap-datepicker.min.js": "bootstrap-datepicker/dist/js/bootstrap-datepicker.min.js",
    "https://cdnjs.cloudflare.com/ajax/libs/font-awesome/6.6.0/css/all.min.css": "fortawesome-fontawesome-free/css/all.min.css",
    "https://unpkg.com/bootstrap-table@1.19.1/dist/bootstrap-table.min.css": "bootstrap-table/dist/bootstrap-table.min.css",
    "https://unpkg.com/bootstrap-table@1.19.1/dist/bootstrap-table.min.js": "bootstrap-table/dist/bootstrap-table.min.js",
    "https://unpkg.com/bootstrap-table@1.19.0/dist/extensions/filter-control/bootstrap-table-filter-control.css": "bootstrap-table/dist/extensions/filter-control/bootstrap-table-filter-control.css",
    "https://unpkg.com/bootstrap-table@1.19.0/dist/extensions/filter-control/bootstrap-table-filter-control.min.css": "bootstrap-table/dist/extensions/filter-control/bootstrap-table-filter-control.min.css",
    "https://unpkg.com/bootstrap-table@1.19.1/dist/extensions/filter-control/bootstrap-table-filter-control.min.js": "bootstrap-table/dist/extensions/filter-control/bootstrap-table-filter-control.min.js",
    "https://cdn.jsdelivr.net/npm/vega@5": "vega/build/vega.min.js",
    "https://cdn.jsdelivr.net/npm/vega-lite@5": "vega-lite/build/vega-lite.min.js",
    "https://cdn.jsdelivr.net/npm/vega-embed@6": "vega-embed/build/vega-embed.min.js",
    "https://cdnjs.cloudflare.com/ajax/libs/popper.js/1.12.9/umd/popper.min.js": "popper.js/dist/umd/popper.min.js",
    "https://code.jquery.com/jquery-3.7.1.min.js": "jquery/dist/jquery.min.js",
}  # fmt: skip

# a stylesheet or script loaded from anywhere but the docs folder (links to pages are fine)
_REMOTE = re.compile(
    r"<(?:link|script|img|iframe)\b[^>]*\b(?:href|src)\s*=\s*[\"']((?:https?:)?//[^\"']+)[\"']"
    r"|url\(\s*[\"']?((?:https?:)?//[^\"')]+)",
    re.IGNORECASE,
)

_GX_IMAGE = re.compile(
    r"https://great-expectations-web-assets\.s3[\w.-]*\.amazonaws\.com/([\w.-]+\.(?:png|svg|gif|ico))"
    r"(?:\?[^\"'\s]*)?"
)


def package_folder(spec: str) -> str:
    """``@scope/name@1.2.3`` -> ``scope-name`` (the folder under ``data_docs_assets/``)."""
    name = spec.rsplit("@", 1)[0]
    return name.lstrip("@").replace("/", "-")


def docs_dir(warehouse: Path) -> Path:
    """``<warehouse>.data_docs/``: the Data Docs of ``warehouse``, beside it."""
    warehouse = Path(warehouse)
    return warehouse.with_name(warehouse.name + SUFFIX)


def docs_dir_for_build(database: Path, build_id: str) -> Path:
    """The Data Docs folder for the build gate: beside the file it validates (the working copy
    ``<warehouse>.building-<build id>``), never the published warehouse's own folder, which
    only :func:`publish` replaces."""
    del build_id  # the working copy's name already carries it
    return docs_dir(Path(database))


def published_index(database: Path, build_id: str) -> Path:
    """``<warehouse>.data_docs/index.html`` for the working copy ``database`` of build
    ``build_id``: where its Data Docs are read once the build publishes."""
    database = Path(database)
    stem = database.name.removesuffix(f".building-{build_id}")
    return docs_dir(database.with_name(stem)) / "index.html"


def publish(work: Path, warehouse: Path) -> Path | None:
    """Make the Data Docs rendered beside ``work`` the warehouse's (at publish): the old folder
    is renamed aside first and removed once the new one is in place. Returns the folder, or
    None when the gate rendered none (e.g. a build that ran no expectation)."""
    new, current = docs_dir(work), docs_dir(warehouse)
    if not new.is_dir():
        return None
    aside = current.with_name(f"{current.name}.replaced-{os.getpid()}")
    if current.is_dir() and not current.is_symlink():
        os.replace(current, aside)
    os.replace(new, current)
    shutil.rmtree(aside, ignore_errors=True)
    return current


def move(work: Path, kept: Path) -> None:
    """The working copy's Data Docs follow it when the build keeps it (``<warehouse>.failed``);
    an older folder there (a previous refused build's) is replaced."""
    new, target = docs_dir(work), docs_dir(kept)
    if not new.is_dir():
        return
    if target.is_dir() and not target.is_symlink():
        shutil.rmtree(target)
    os.replace(new, target)


def discard(work: Path) -> None:
    """Remove the Data Docs the gate rendered beside ``work`` (a build that did not publish)."""
    shutil.rmtree(docs_dir(work), ignore_errors=True)


def localise(docs: Path) -> int:
    """Copy the vendored assets into ``<docs>/static/vendor/`` and point every HTML page under
    ``docs`` at them (relative links: the folder opens from disk, anywhere). Returns the number
    of links rewritten."""
    docs = Path(docs)
    vendor = docs / VENDOR
    if vendor.exists():
        shutil.rmtree(vendor)
    shutil.copytree(ASSETS_DIR, vendor, ignore=shutil.ignore_patterns("*.py", "__pycache__"))
    rewritten = 0
    for page in sorted(docs.rglob("*.html")):
        text = page.read_text(encoding="utf-8")
        prefix = os.path.relpath(vendor, page.parent).replace(os.sep, "/")
        new = text
        for url, local in CDN.items():
            for quote in ('"', "'"):
                needle = f"{quote}{url}{quote}"
                if needle in new:
                    rewritten += new.count(needle)
                    new = new.replace(needle, f"{quote}{prefix}/{local}{quote}")
        # GX's logos, from its S3 bucket (one with a timestamp query, a beacon): the local copy
        # GX ships in static/images (the dark-mode logo, which it does not ship: the light one)
        images = os.path.relpath(docs / "static" / "images", page.parent).replace(os.sep, "/")
        new, n = _GX_IMAGE.subn(lambda m, to=images: _gx_image(docs, to, m.group(1)), new)
        rewritten += n
        # GX's links into static/images count one "../" per dot of the suite name, which
        # misses on our validation pages (their favicon.ico): each pointed at the real folder
        new, n = _STATIC_IMAGE.subn(
            lambda m, to=images: f"{m.group(1)}{to}/{m.group(2)}{m.group(1)}", new
        )
        rewritten += n
        # the integrity hashes GX pins belong to the CDN copies, and a crossorigin script is
        # refused from file:// (no CORS there): both dropped with the CDN addresses
        new = re.sub(r'\s+(?:integrity|crossorigin)="[^"]*"', "", new)
        if new != text:
            page.write_text(new, encoding="utf-8")
    # GX's stylesheets: the navbar logo from its S3 bucket, replaced by the shipped one
    for sheet in sorted(docs.rglob("*.css")):
        if vendor in sheet.parents:
            continue
        text = sheet.read_text(encoding="utf-8")
        images = os.path.relpath(docs / "static" / "images", sheet.parent).replace(os.sep, "/")
        new, n = _GX_IMAGE.subn(lambda m, to=images: _gx_image(docs, to, m.group(1)), text)
        if n:
            sheet.write_text(new, encoding="utf-8")
            rewritten += n
    return rewritten


# an attribute pointing into GX's static/images by a relative path ("../../static/images/x")
_STATIC_IMAGE = re.compile(r"""(["'])(?:\./|(?:\.\./)+)static/images/([\w.-]+)\1""")


def _gx_image(docs: Path, images: str, name: str) -> str:
    shipped = (docs / "static" / "images" / name).is_file()
    return f"{images}/{name if shipped else 'logo-long.png'}"


def remote_links(docs: Path) -> list[tuple[Path, str]]:
    """(file, address) of every stylesheet, script, image or CSS ``url()`` a page or a
    stylesheet under ``docs`` would load from another host (links to other pages are not
    loads)."""
    found = []
    files = sorted(Path(docs).rglob("*.html")) + sorted(Path(docs).rglob("*.css"))
    for path in files:
        for match in _REMOTE.finditer(path.read_text(encoding="utf-8")):
            found.append((path, match.group(1) or match.group(2)))
    return found
