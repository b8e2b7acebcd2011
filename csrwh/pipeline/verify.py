"""Checks of the published warehouse file a build makes before it works: that it can replace
the file (not marked immutable), and, with ``csrwh build --verify``, that every block of every
table still matches the checksum DuckDB stored with it (bit rot, a damaged disk, a stray write:
the file's size and modification time do not change, so the up-to-date check cannot see it)."""

from __future__ import annotations

import fcntl
import os
import struct
from pathlib import Path

from csrwh.errors import CsrwhError, damaged_warehouse_error, is_damaged_database

#: Linux ``FS_IOC_GETFLAGS`` and the inode flags that make a file impossible to replace
_FS_IOC_GETFLAGS = 0x80086601
_FS_IMMUTABLE_FL = 0x10
_FS_APPEND_FL = 0x20


def _inode_flags(path: Path) -> int | None:
    """The file's inode flags (``lsattr``), or None where the file system has none."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return None
    try:
        raw = fcntl.ioctl(fd, _FS_IOC_GETFLAGS, bytes(8))
    except OSError:  # not supported here (e.g. tmpfs, macOS)
        return None
    finally:
        os.close(fd)
    return struct.unpack("i", raw[:4])[0]


def refuse_immutable(warehouse: Path) -> None:
    """Refuse, before any work, a published warehouse (or its WAL) marked immutable or
    append-only (``chattr +i``/``+a``): publishing renames the new build over it, which the
    file system refuses -- found only after a full build otherwise."""
    for path in (warehouse, warehouse.with_name(warehouse.name + ".wal")):
        flags = _inode_flags(path) if path.is_file() else None
        if flags is not None and flags & (_FS_IMMUTABLE_FL | _FS_APPEND_FL):
            kind = "immutable" if flags & _FS_IMMUTABLE_FL else "append-only"
            letter = "i" if flags & _FS_IMMUTABLE_FL else "a"
            raise CsrwhError(
                f"{path} is marked {kind} (chattr +{letter}): a build could not replace it; "
                "nothing was changed",
                hint=f"clear the flag (as root: chattr -{letter} {path}) and build again, or "
                "build another --warehouse",
            )


def verify_blocks(warehouse: Path) -> int:
    """Read every column of every table of ``warehouse`` (read-only), so DuckDB checks each
    block against its stored checksum; returns how many tables were read. A damaged file or
    block is one line naming the table and ``--full-refresh``."""
    import duckdb

    con = duckdb.connect(":memory:")
    literal = str(warehouse).replace("'", "''")
    try:
        con.execute(f"attach '{literal}' as w (read_only)")
        con.execute("use w")
    except duckdb.Error as exc:
        con.close()
        if is_damaged_database(str(exc)):
            raise damaged_warehouse_error(warehouse, str(exc)) from exc
        raise CsrwhError(
            f"cannot open {warehouse} read-only: {str(exc).strip().splitlines()[0]}",
            hint="is another build writing it?",
        ) from exc
    try:
        tables = con.execute(
            "select schema_name, table_name from duckdb_tables() "
            "where database_name = current_database() order by all"
        ).fetchall()
        for schema, table in tables:
            name = '"' + schema.replace('"', '""') + '"."' + table.replace('"', '""') + '"'
            try:
                con.execute(f"select bit_xor(hash(columns(*))) from {name}").fetchall()
            except Exception as exc:
                if not is_damaged_database(str(exc)):
                    raise
                raise damaged_warehouse_error(
                    warehouse, f"table {schema}.{table}: {str(exc).splitlines()[0]}"
                ) from exc
    finally:
        con.close()
    return len(tables)


__all__ = ["refuse_immutable", "verify_blocks"]
