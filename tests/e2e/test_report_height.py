"""The report on the generated sample (what ``make demo`` writes, the first page a newcomer
opens) stays a readable length: under 25,000 px tall in Chromium at 1,400 px wide, every
section and image there."""

from __future__ import annotations

from pathlib import Path

import pytest

from csrwh.reading.report import build_report

pytestmark = pytest.mark.e2e

MAX_HEIGHT_PX = 25_000
WIDTH_PX = 1_400


def test_the_demo_report_is_under_25000_px_at_1400_px_wide(
    chromium_browser, sample_warehouse: Path, tmp_path: Path
) -> None:
    page_path = build_report(sample_warehouse, tmp_path / "report", progress=False)
    page = chromium_browser.new_page(viewport={"width": WIDTH_PX, "height": 1000})
    page.goto(page_path.resolve().as_uri(), wait_until="load")
    state = page.evaluate(
        """() => ({
            height: document.documentElement.scrollHeight,
            width: document.documentElement.scrollWidth,
            images: [...document.images].filter(i => i.complete && i.naturalWidth > 0).length,
            status: document.body.dataset.reportStatus,
        })"""
    )
    page.close()
    print(f"demo report: {state['height']:,} px tall at {WIDTH_PX:,} px wide")  # for -s
    assert state["status"] == "ok"
    assert state["images"] >= 8
    assert state["height"] < MAX_HEIGHT_PX, f"{state['height']:,} px tall"
