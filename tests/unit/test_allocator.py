"""The build's allocator settings (csrwh/pipeline/allocator.py): applied by `csrwh build` before Arrow is
imported, switched off by CSRWH_ALLOCATOR=default, and never over a setting the user made."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _run(code: str, **env: str) -> dict:
    """Run ``code`` in a fresh interpreter (Arrow not yet imported); its last line is JSON."""
    environment = {
        k: v
        for k, v in os.environ.items()
        if k not in ("ARROW_DEFAULT_MEMORY_POOL", "CSRWH_ALLOCATOR", "MALLOC_ARENA_MAX")
    }
    environment.update(env)
    proc = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        env=environment,
        cwd=ROOT,
        check=False,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


TUNE = """
    import json
    from csrwh.pipeline.allocator import tune_for_build
    applied = tune_for_build()
    import pyarrow as pa
    print(json.dumps({"applied": applied, "pool": pa.default_memory_pool().backend_name}))
"""


def _default_pool() -> str:
    return _run(
        "import json, pyarrow as pa; print(json.dumps({'pool': pa.default_memory_pool().backend_name}))"
    )["pool"]


def test_build_settings_make_arrow_use_the_system_allocator_and_limit_glibc() -> None:
    out = _run(TUNE)
    assert out["pool"] == "system"
    assert "ARROW_DEFAULT_MEMORY_POOL=system" in out["applied"]
    if sys.platform.startswith("linux") and os.confstr("CS_GNU_LIBC_VERSION"):
        assert "M_ARENA_MAX=2" in out["applied"]
        assert "M_MMAP_THRESHOLD=1048576" in out["applied"]


def test_switched_off_leaves_the_default_pool() -> None:
    default = _default_pool()
    if default == "system":
        pytest.skip("this pyarrow's default pool is already the system allocator")
    out = _run(TUNE, CSRWH_ALLOCATOR="default")
    assert out == {"applied": [], "pool": default}


def test_the_users_own_settings_win() -> None:
    out = _run(TUNE, ARROW_DEFAULT_MEMORY_POOL="jemalloc", MALLOC_ARENA_MAX="4")
    assert out["pool"] == "jemalloc"
    assert not [a for a in out["applied"] if a.startswith(("ARROW", "M_ARENA_MAX"))]


def test_csrwh_build_applies_them_before_it_builds(tmp_path: Path) -> None:
    """The CLI's build command tunes before the build imports Arrow (the build itself is
    replaced here by one that reports the pool it would allocate from)."""
    data = tmp_path / "data"
    data.mkdir()
    out = _run(
        f"""
        import json, sys
        import csrwh.pipeline

        def report(*args, **kwargs):
            import pyarrow as pa
            print(json.dumps({{"pool": pa.default_memory_pool().backend_name}}))
            sys.exit(0)

        csrwh.pipeline.build = report
        from csrwh.cli import app
        app(["build", "--data-dir", {str(data)!r}, "--warehouse", {str(tmp_path / "w.duckdb")!r}])
        """
    )
    assert out["pool"] == "system"


ENTRY = """
    import json, os, sys

    sys.argv = ["csrwh", *ARGS]
    seen = {}

    class Watch:  # notes the pool setting when pyarrow is first imported, by whoever
        def find_spec(self, name, path=None, target=None):
            if name == "pyarrow" and "pool" not in seen:
                seen["pool"] = os.environ.get("ARROW_DEFAULT_MEMORY_POOL")
            return None

    sys.meta_path.insert(0, Watch())
    import csrwh.cli  # the entry point's module: `csrwh` runs csrwh.cli:main
    import pyarrow  # noqa: F401 - the first import of Arrow, if the entry did not import it
    print(json.dumps(seen))
"""


def test_the_cli_entry_tunes_for_build_before_anything_imports_arrow() -> None:
    """`csrwh build` tunes as the CLI's first act, before the entry's own imports: a module
    below the CLI that imports pyarrow eagerly would otherwise fix mimalloc as Arrow's pool."""
    out = _run(ENTRY.replace("*ARGS", "'build', '--data-dir', 'x'"))
    assert out == {"pool": "system"}


def test_the_cli_entry_leaves_other_commands_alone() -> None:
    out = _run(ENTRY.replace("*ARGS", "'sql', 'build'"))
    assert out == {"pool": None}
