"""The salvage parser for JSON arrays DuckDB refuses: element by element with
``json.JSONDecoder.raw_decode``, resynchronising at the next element boundary after a bad
element (see :func:`salvage_array`). Input nested too deeply for Python's parser is a
reject, never a RecursionError."""

from __future__ import annotations

import json
import re

import pyarrow as pa

from ingest.discover import SURROGATE, SourceFile
from ingest.readers.stage import file_reject

_PY_KIND = {
    dict: "an object",
    list: "an array",
    str: "a string",
    type(None): "null",
    bool: "a boolean",
}
_NOT_WS = re.compile(r"[^ \t\n\r]")


WS_CHARS = " \t\n\r"
#: characters that matter to the structural scanner (outside strings: all; inside: \\ and ")
_STRUCT = re.compile(r'[\\"{}\[\],]')
_IN_STRING = re.compile(r'[\\"]')
_FIRST_KEY = re.compile(r'\{[ \t\r\n]*("(?:[^"\\]|\\.)*")[ \t\r\n]*:')


def _decode_at(dec: json.JSONDecoder, text: str, i: int) -> tuple[int | None, str, int]:
    """``raw_decode`` at ``i``: (end, "", 0) when a value parses, else (None, problem, position).

    Deep nesting exhausts Python's parser (RecursionError): that is a problem of the record,
    reported like a syntax error, never an abort of the run.
    """
    try:
        _, end = dec.raw_decode(text, i)
        return end, "", 0
    except json.JSONDecodeError as exc:
        return None, exc.msg, exc.pos
    except RecursionError:
        return None, "JSON nested too deeply to parse (more than ~1000 levels)", i


def _where(text: str, pos: int) -> str:
    line = text.count("\n", 0, pos) + 1
    col = pos - (text.rfind("\n", 0, pos) + 1) + 1
    return f"file line {line}, column {col}"


def _scan(
    text: str, pos: int, depth: int, in_str: bool, stop: int | None = None
) -> tuple[int | None, int, bool]:
    """Structural scan of JSON text from ``pos`` with the given state.

    Returns (boundary, depth, in_str): ``boundary`` is the index of the first ``,`` at
    depth 0 (the end of the current array element) or of a ``]`` that closes the enclosing
    array (depth -1), or None when ``stop`` (or the end of the text) is reached first; the
    state is the one at ``stop``. A stray ``}`` at depth 0 is ignored.
    """
    end = len(text) if stop is None else stop
    i = pos
    while i < end:
        m = (_IN_STRING if in_str else _STRUCT).search(text, i, end)
        if m is None:
            break
        ch = m.group()
        i = m.end()
        if ch == "\\":
            i += 1  # the escaped character (inside a string; noise outside)
        elif ch == '"':
            in_str = not in_str
        elif ch in "{[":
            depth += 1
        elif ch == "}":
            depth = max(depth - 1, 0)
        elif ch == "]":
            if depth == 0:
                return m.start(), depth, in_str
            depth -= 1
        elif depth == 0:  # ","
            return m.start(), depth, in_str
    return None, depth, in_str


def salvage_array(f: SourceFile, body: bytes) -> tuple[pa.Table, list[dict]]:
    """Parse a JSON array element by element; land good elements, reject only bad ones.

    After a bad element the parser resynchronises at the next element boundary, so one
    broken element is one reject (its verbatim text, at its position) and the following
    elements still land:

    * pretty-printed arrays (the separators between good elements hold a line break): the
      next element starts on the next line with the elements' own indentation after a
      ``,`` -- JSON strings cannot hold raw line breaks, so that is structural even when a
      quote is missing inside the bad element;
    * otherwise a structural scan (strings, brackets) finds the next ``,`` at the array's
      level, trying both string states from the point where the parser failed (a missing or
      extra quote inverts them); a boundary is taken only if the element after it parses
      (and, when the elements are objects, starts with the same first key as the good ones);
    * failing that (a bracket too many or too few), the next ``, {"<first key>":`` whose
      element parses.

    An element that starts with a key and ``:`` is an object missing its opening ``{``: it
    alone is rejected (scanned as if the ``{`` were there). A good element followed by a
    separator with the wrong indentation and then by text that is not an element was cut
    off by a stray closing bracket -- unless it ends as the layout's elements end (its
    closing bracket alone on a line at their indentation): it is taken back and rejected
    together with that text. When no boundary is found the rest of the array (or file) is
    rejected as one record.
    Returns the element table (record_index, t, pre_error, raw) and file-level rejects
    (record_index NULL) such as "not an array" or "array not closed".
    """
    text = body.decode("utf-8", "surrogateescape")
    dec = json.JSONDecoder()
    n = len(text)

    def skip(i: int) -> int:
        m = _NOT_WS.search(text, i)
        return m.start() if m else n

    idx: list[int] = []
    ts: list[str | None] = []
    pre: list[str | None] = []
    raws: list[bytes | None] = []
    file_rejects: list[dict] = []

    def add(t: str | None, err: str | None, raw: str | None = None) -> None:
        if t is not None and SURROGATE.search(t):
            err, raw, t = "invalid UTF-8", t, None
        idx.append(len(idx))
        ts.append(t)
        pre.append(err)
        raws.append(raw.encode("utf-8", "surrogateescape") if raw is not None else None)

    stripped = text.rstrip(WS_CHARS)
    closed = stripped.endswith("]")
    closing = len(stripped) - 1 if closed else None  # index of the array's final "]"

    first_key: list[str] = []  # the first key of the good object elements (one value)

    def element_ok(p: int) -> bool:
        """An element starts at ``p`` that parses, is followed by "," or the final "]" and,
        when the good elements are objects, starts with their first key."""
        try:
            value, end = dec.raw_decode(text, p)
        except (ValueError, RecursionError):
            return False
        if first_key and not (isinstance(value, dict) and next(iter(value), None) == first_key[0]):
            return False
        q = skip(end)
        return q < n and (text[q] == "," or q == closing)

    def resync(
        start: int, err_pos: int, indent: str | None, opener: str | None, depth0: int = 0
    ) -> tuple[int, int] | None:
        """(end of the bad element, start of the next one) or None. ``depth0``: the element's
        bracket depth at ``start`` (1 for an object missing its opening ``{``)."""
        if indent is not None:
            nxt = "[" + re.escape(opener) + "]" if opener else r"[^ \t\r\n\]}]"
            m = re.compile(r",[ \t]*\r?\n" + re.escape(indent) + "(?=" + nxt + ")").search(
                text, start
            )
            if m:
                return m.start(), m.end()

        def boundary(c: int | None) -> tuple[int, int] | None:
            if c is None or (text[c] == "]" and c != closing):
                return None
            if text[c] == "]":
                return c, c
            p = skip(c + 1)
            if p < n and (opener is None or text[p] == opener) and element_ok(p):
                return c, p
            return None

        b, depth, in_str = _scan(text, start, depth0, False, stop=max(err_pos, start))
        if b is not None:
            found = boundary(b)
        else:  # from the error on, both string states; the earliest good boundary wins
            found = None
            for state in (not in_str, in_str):
                c = _scan(
                    text, max(err_pos, start), depth, state, stop=found[0] if found else None
                )[0]
                found = boundary(c) or found
        if found is not None:
            return found
        if first_key:  # a bracket too many or too few: look for the next element's first key
            key = json.dumps(first_key[0], ensure_ascii=False)
            rx = re.compile(r",[ \t\r\n]*(\{)[ \t\r\n]*" + re.escape(key) + r"[ \t\r\n]*:")
            for m in rx.finditer(text, start + 1, closing or n):
                if element_ok(m.start(1)):
                    return m.start(), m.start(1)
        return None

    def closes_at_indent(start: int, end: int) -> bool:
        """The element ``text[start:end]`` ends the way the layout's elements end: its
        closing bracket alone on a line with the elements' indentation (so it is complete,
        not a fragment cut off by a stray closing bracket)."""
        return indent is not None and text[start:end].endswith(
            ("\n" + indent + "}", "\n" + indent + "]")
        )

    i = skip(0)
    if text[i] != "[":
        try:
            found = _PY_KIND.get(type(json.loads(text)), "a number")
        except (ValueError, RecursionError):
            found = "text that is not JSON"
        file_rejects.append(
            file_reject(
                f.rel,
                f.sha256,
                f"wrong top-level shape: expected a JSON array, found {found}",
                body,
            )
        )
    else:
        opened = i
        i = skip(i + 1)
        lead = text[opened + 1 : i]
        indent = lead[lead.rfind("\n") + 1 :] if "\n" in lead else None
        layout_known = False  # indent comes from the first separator between good elements
        opener: str | None = None
        odd: tuple[int, int] | None = None  # (start, end) of a good element whose separator
        # did not have the layout's indentation: it may be a fragment cut off by an extra
        # closing bracket, so it is taken back if the next element does not parse
        while True:
            if i >= n:
                file_rejects.append(
                    file_reject(
                        f.rel,
                        f.sha256,
                        "truncated file: the JSON array is not closed (no partial record left)",
                        b"",
                    )
                )
                break
            if text[i] == "]":
                rest = text[i + 1 :]
                if rest.strip(WS_CHARS):
                    add(None, "broken JSON: unexpected text after the closing ']'", rest)
                break
            end, problem, pos = _decode_at(dec, text, i)
            missing_open = (
                end is not None
                and text[i] == '"'
                and opener in (None, "{")
                and skip(end) < n
                and text[skip(end)] == ":"
            )
            if missing_open:  # a key and ":" where an element starts: an object without "{"
                end, problem, pos = None, "an object element is missing its opening '{'", i
            if end is not None and odd is not None and opener is not None and text[i] != opener:
                end, problem, pos = (
                    None,
                    "an element ends early (a stray closing bracket?)",
                    odd[1] - 1,
                )
            if end is not None:
                add(text[i:end], None)
                if opener is None and text[i] in "{[":
                    opener = text[i]
                if not first_key and text[i] == "{":
                    m = _FIRST_KEY.match(text, i)
                    if m:
                        try:
                            first_key.append(json.loads(m.group(1)))
                        except ValueError:
                            pass
                j = skip(end)
                if j < n and text[j] == ",":
                    k = skip(j + 1)
                    sep = text[j + 1 : k]
                    sep_indent = sep[sep.rfind("\n") + 1 :] if "\n" in sep else None
                    if not layout_known:
                        indent, layout_known = sep_indent, True
                    odd = (i, end) if sep_indent != indent else None
                    i = k
                    continue
                odd = None
                if j >= n or text[j] == "]":
                    i = j
                    continue
                # something other than "," or "]" after a good element: reject up to the
                # next boundary as one record
                i, problem, pos = j, "expected ',' or ']' after the previous element", j
            elif odd is not None and not closes_at_indent(*odd):
                # the previous element was cut off early: take it back, reject both parts as one
                problem, pos, missing_open = (
                    "an element ends early (a stray closing bracket?)",
                    odd[1] - 1,
                    False,
                )
                i = odd[0]
                for col in (idx, ts, pre, raws):
                    col.pop()
            odd = None
            where = _where(text, pos)
            found_at = resync(
                i,
                pos,
                indent,
                opener or ("{" if missing_open else text[i] if text[i] in "{[" else None),
                depth0=1 if missing_open else 0,
            )
            if found_at is not None:  # reject this element only, go on with the next one
                c, p = found_at
                add(None, f"broken JSON: {problem} ({where})", text[i:c].rstrip(WS_CHARS))
                i = p
                continue
            if closing is not None and closing > i:
                add(
                    None,
                    f"broken JSON: {problem} ({where}); no later element boundary found, "
                    "the rest of the array is rejected as this record",
                    text[i:closing].rstrip(WS_CHARS),
                )
                i = closing
                continue
            add(
                None,
                f"truncated file: partial last record: {problem} ({where}); "
                "the rest of the file is rejected as this record",
                text[i:],
            )
            break
    table = pa.table(
        {
            "record_index": pa.array(idx, pa.int64()),
            "t": pa.array(ts, pa.large_string()),
            "pre_error": pa.array(pre, pa.string()),
            "raw": pa.array(raws, pa.large_binary()),
        }
    )
    return table, file_rejects
