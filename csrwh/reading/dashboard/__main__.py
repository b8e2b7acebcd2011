"""``python -m csrwh.reading.dashboard [--warehouse PATH] [--port N] [--open]`` (same as ``csrwh dashboard``)."""

from __future__ import annotations

import argparse
import sys

from csrwh import config
from csrwh.errors import CsrwhError, ensure_port_free
from csrwh.reading.dashboard import DEFAULT_PORT, serve


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m csrwh.reading.dashboard", description=__doc__)
    parser.add_argument(
        "--warehouse",
        default=None,
        help="warehouse file (default $CSRWH_WAREHOUSE, then warehouse/csr.duckdb)",
    )
    parser.add_argument("--port", type=int, default=DEFAULT_PORT)
    parser.add_argument(
        "--open", dest="open_browser", action="store_true", help="open a browser tab"
    )
    args = parser.parse_args(argv)
    try:
        ensure_port_free(args.port)
        serve(
            config.resolve_warehouse(args.warehouse), port=args.port, open_browser=args.open_browser
        )
    except CsrwhError as exc:
        print(f"error: {exc.message}", file=sys.stderr)
        if exc.hint:
            print(f"hint: {exc.hint}", file=sys.stderr)
        sys.exit(exc.exit_code)


if __name__ == "__main__":
    main()
