"""Vendor the stylesheets, scripts and fonts Great Expectations' Data Docs link from CDNs into
csrwh/gate/data_docs_assets/ (so Data Docs render offline; csrwh.gate.data_docs).

Each package comes from the npm registry (``npm pack <name>@<version>``, the version pinned in
``csrwh.gate.data_docs.PACKAGES``); only the files listed there are kept, with the
package's licence. ``data_docs_assets/README.md`` records name, version, licence and the npm
integrity of every tarball. Run: ``.venv/bin/python scripts/vendor_data_docs_assets.py``.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from csrwh.gate.data_docs import ASSETS_DIR, PACKAGES, package_folder


def main() -> int:
    if ASSETS_DIR.exists():
        shutil.rmtree(ASSETS_DIR)
    ASSETS_DIR.mkdir(parents=True)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for spec, files in PACKAGES.items():
            out = subprocess.run(
                ["npm", "pack", spec, "--json", "--pack-destination", tmp],
                check=True,
                capture_output=True,
                text=True,
            )
            info = json.loads(out.stdout)[0]
            target = ASSETS_DIR / package_folder(spec)
            with tarfile.open(Path(tmp) / info["filename"]) as tar:
                manifest = json.load(tar.extractfile("package/package.json"))
                for rel in files:
                    member = tar.extractfile(f"package/{rel}")
                    dest = target / rel
                    dest.parent.mkdir(parents=True, exist_ok=True)
                    dest.write_bytes(member.read())
            licence = manifest.get("license", "")
            if not any(Path(f).name.upper().startswith("LICENSE") for f in files):
                # the package ships no licence file: its package.json licence and author
                author = manifest.get("author", "")
                author = author.get("name", "") if isinstance(author, dict) else author
                (target / "LICENSE").write_text(
                    f"{manifest['name']} {manifest['version']}: licence {licence} "
                    f"(package.json of the npm package; author: {author or 'see package'}).\n"
                    f"Terms: https://spdx.org/licenses/{licence}.html\n",
                    encoding="utf-8",
                )
            rows.append(
                f"| `{manifest['name']}` | {manifest['version']} | {licence} | "
                f"`{package_folder(spec)}/` | `{info['integrity']}` |"
            )
    (ASSETS_DIR / "README.md").write_text(
        "# Data Docs assets (vendored)\n\n"
        "What Great Expectations' Data Docs pages link from CDNs, taken from the npm registry\n"
        "by `scripts/vendor_data_docs_assets.py` so Data Docs render offline\n"
        "(`csrwh.gate.data_docs`). Only the files the pages load are kept, each package\n"
        "with its licence (`LICENSE*` in its folder).\n\n"
        "| package | version | licence | folder | npm integrity |\n|---|---|---|---|---|\n"
        + "\n".join(rows)
        + "\n",
        encoding="utf-8",
    )
    print(f"vendored {len(rows)} packages into {ASSETS_DIR}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
