"""The raw RecLLMSim history check runs over eight slices of the table (to bound the memory of
its JSON parses); the slices together must still see every record: each bad record is found
once, good ones never, whatever its key (NULL included)."""

from __future__ import annotations

import json

import duckdb

from csrwh.config import PROJECT_ROOT
from csrwh.gate.suites import load_suite

SUITE = PROJECT_ROOT / "expectations" / "raw" / "recllmsim__conversations.yml"


def _query() -> str:
    suite = load_suite(SUITE)
    (spec,) = [e for e in suite.expectations if e.name == "history_has_documented_shape"]
    return spec.kwargs["unexpected_rows_query"].replace(
        "{batch}", "(select * from records_under_test) AS subselect"
    )


def _good(n: int) -> dict:
    return {
        "history": [
            {"role": "user" if i % 2 == 0 else "assistant", "content": f"turn {i}"}
            for i in range(n)
        ]
    }


BAD = {
    "not-an-array": {"history": {"role": "user", "content": "x"}},
    "missing": {"rating": {}},
    "empty": {"history": []},
    "unknown-role": {"history": [{"role": "system", "content": "x"}]},
    "role-missing": {"history": [{"content": "x"}, {"role": "assistant", "content": "y"}]},
    "content-not-text": {"history": [{"role": "user", "content": 7}]},
    "content-missing": {"history": [{"role": "user"}]},
}


def test_every_bad_record_is_found_once_and_no_good_one() -> None:
    con = duckdb.connect()
    con.execute("create table records_under_test (record_key varchar, payload json)")
    rows = [(f"good/{i}", json.dumps(_good(1 + i % 5))) for i in range(400)]
    bad_keys = []
    for i in range(40):  # every kind, spread over the slices
        for kind, payload in BAD.items():
            bad_keys.append(f"{kind}/{i}")
            rows.append((bad_keys[-1], json.dumps(payload)))
    rows.append((None, json.dumps(BAD["unknown-role"])))
    con.executemany("insert into records_under_test values (?, ?)", rows)

    found = [r[0] for r in con.execute(_query()).fetchall()]

    assert sorted(found, key=str) == sorted([*bad_keys, None], key=str)
    slices = con.execute(
        "select count(distinct hash(record_key) % 8) from records_under_test"
    ).fetchone()[0]
    assert slices == 8  # the bad records fell in every slice
