"""Oracle for the crsarena analyses (see __init__).

Recomputed from plain rows of `conversations`, `turns`, `votes` and `crs_leaderboard` in Python
(``statistics``, Counters, sets, ``random``) -- never from the CRSArena analysis marts
(`crsarena_dialogue_stats`, `crsarena_battle_counts`, `crsarena_vote_results`,
`text_diversity`) that the report reads. Distinct-n is written out again here from the
definition in CRSArena-Dial's tool/metrics.py as tool/analysis.ipynb calls it.
"""

from __future__ import annotations

import random
import re
import statistics
import weakref
from collections import Counter, defaultdict
from typing import Any

from report_oracle.common import Rows, correlation, rows

ALL = "(all)"
MAX_WORDS, ITERATIONS, SEED = 7012, 100, 42
# Recall@10 per CRS from Wang et al. (2023) as analysis.ipynb lists them (CRB-CRS: none)
RECALL_AT_10 = {
    "barcor_opendialkg": 0.453,
    "barcor_redial": 0.170,
    "chatgpt_opendialkg": 0.539,
    "chatgpt_redial": 0.174,
    "kbrd_opendialkg": 0.423,
    "kbrd_redial": 0.169,
    "unicrs_opendialkg": 0.513,
    "unicrs_redial": 0.215,
}


def _dialogues(con) -> Rows:
    return rows(
        con,
        """select conversation_id, subset, system_id, user_id, user_sentiment, n_turns,
                                source_path, source_record_index
                         from conversations where corpus = 'crsarena'""",
    )


# --------------------------------------------------------------------------- tables


def expected_dialogue_stats(con) -> Rows:
    dialogues = _dialogues(con)
    words = defaultdict(list)
    for r in rows(con, "select conversation_id, n_words from turns where corpus = 'crsarena'"):
        words[r["conversation_id"]].append(r["n_words"])
    groups = defaultdict(list)
    for d in dialogues:
        for env in (d["subset"], "combined"):
            groups[(env, ALL)].append(d)
            if d["system_id"] is not None:
                groups[(env, d["system_id"])].append(d)
    out = []
    for (env, system), ds in groups.items():
        turns = [d["n_turns"] for d in ds]
        lengths = [w for d in ds for w in words[d["conversation_id"]]]
        satisfied = sum(1 for d in ds if d["user_sentiment"] == "satisfied")
        frustrated = sum(1 for d in ds if d["user_sentiment"] == "frustrated")
        out.append(
            {
                "environment": env,
                "system_id": system,
                "n_dialogues": len(ds),
                "n_satisfied": satisfied,
                "n_frustrated": frustrated,
                "satisfied_share": satisfied / (satisfied + frustrated)
                if satisfied + frustrated
                else None,
                "n_utterances": sum(turns),
                "utterances_mean": statistics.mean(turns),
                "utterances_median": statistics.median(turns),
                "utterances_sd": statistics.stdev(turns) if len(turns) > 1 else None,
                "words_mean": statistics.mean(lengths) if lengths else None,
                "words_median": statistics.median(lengths) if lengths else None,
                "words_sd": statistics.stdev(lengths) if len(lengths) > 1 else None,
            }
        )
    return out


def expected_battle_counts(con) -> Rows:
    dialogues = _dialogues(con)
    votes = rows(con, "select environment, user_id, system_a, system_b, winner from votes")
    voters = {(d["subset"], d["user_id"]) for d in dialogues}
    systems = (
        {v["system_a"] for v in votes}
        | {v["system_b"] for v in votes}
        | {d["system_id"] for d in dialogues}
    ) - {None}
    counts = defaultdict(Counter)
    for v in votes:
        battle = (v["environment"], v["user_id"]) in voters
        for env in (v["environment"], "combined"):
            c = counts[(env, v["system_a"], v["system_b"])]
            c["n_votes"] += 1
            if battle:
                c["n_battles"] += 1
                c[
                    {"a": "n_wins_a", "b": "n_wins_b", "tie": "n_ties"}.get(v["winner"], "other")
                ] += 1
    out = []
    for env in ("open", "closed", "combined"):
        for a in systems:
            for b in systems:
                c = counts[(env, a, b)]
                out.append(
                    {
                        "environment": env,
                        "system_a": a,
                        "system_b": b,
                        "n_votes": c["n_votes"],
                        "n_battles": c["n_battles"],
                        "n_wins_a": c["n_wins_a"],
                        "n_wins_b": c["n_wins_b"],
                        "n_ties": c["n_ties"],
                    }
                )
    return out


def expected_tie_shares(con) -> Rows:
    totals = defaultdict(Counter)
    for r in expected_battle_counts(con):
        totals[r["environment"]]["n_battles"] += r["n_battles"]
        totals[r["environment"]]["n_ties"] += r["n_ties"]
    return [
        {
            "environment": env,
            "n_battles": t["n_battles"],
            "n_ties": t["n_ties"],
            "tie_share": t["n_ties"] / t["n_battles"] if t["n_battles"] else None,
        }
        for env, t in totals.items()
    ]


def vote_result_per_dialogue(con) -> dict[str, str]:
    """tool/merge.py's rule, from plain rows: same environment and user, the dialogue's CRS as
    crs1 or crs2, later copies of a (user, crs1, crs2, vote) dropped."""
    votes = rows(
        con,
        """select environment, user_id, system_a, system_b, winner, vote_id,
                                 cast(split_part(vote_id, ':', 3) as integer) as position
                          from votes""",
    )
    seen, kept = set(), []
    for v in sorted(votes, key=lambda v: (v["environment"], v["position"])):
        key = (v["environment"], v["user_id"], v["system_a"], v["system_b"], v["winner"])
        if key not in seen:
            seen.add(key)
            kept.append(v)
    out = {}
    for d in _dialogues(con):
        found = [
            v
            for v in kept
            if v["environment"] == d["subset"]
            and v["user_id"] == d["user_id"]
            and d["system_id"] in (v["system_a"], v["system_b"])
        ]
        if not found:
            out[d["conversation_id"]] = "no_vote"
        elif len(found) > 1:
            out[d["conversation_id"]] = "ambiguous"
        else:
            v = found[0]
            named = {"a": v["system_a"], "b": v["system_b"]}.get(v["winner"])
            out[d["conversation_id"]] = (
                "tie" if v["winner"] == "tie" else ("win" if named == d["system_id"] else "lose")
            )
    return out


def expected_vote_results(con) -> Rows:
    env = {d["conversation_id"]: d["subset"] for d in _dialogues(con)}
    counts = Counter((env[c], result) for c, result in vote_result_per_dialogue(con).items())
    return [{"environment": e, "vote_result": r, "n_dialogues": n} for (e, r), n in counts.items()]


# --------------------------------------------------------------------------- Distinct-n


def _dataset_tokens(line: str) -> list[str]:
    lowered = line.lower().replace(".", "").replace("\n", "")
    return [t for t in lowered.split(" ") if t]


def _grams(tokens: list[str], n: int) -> list[tuple[str, ...]]:
    return [tuple(tokens[i : i + n]) for i in range(len(tokens) - n + 1)]


def _ratio(grams: list) -> float:
    return len(set(grams)) / len(grams) if grams else 0.0


def distinct_dataset(lines: list[str]) -> tuple[float, float]:
    """(Distinct-1, Distinct-2): 100 seeded shuffles, each cut to 7,012 words, mean."""
    grams = {n: [_grams(_dataset_tokens(line), n) for line in lines] for n in (1, 2)}
    n_words = [len(line.split()) for line in lines]
    rng = random.Random(SEED)
    results = {1: [], 2: []}
    for _ in range(ITERATIONS):
        order = rng.sample(list(range(len(lines))), len(lines))
        taken, cut, count = [], None, 0
        for i in order:
            if count + n_words[i] <= MAX_WORDS:
                taken.append(i)
                count += n_words[i]
            else:
                cut = " ".join(lines[i].split()[: MAX_WORDS - count])
                break
        for n in (1, 2):
            seen, total = set(), 0
            for i in taken:
                seen.update(grams[n][i])
                total += len(grams[n][i])
            if cut is not None:
                extra = _grams(_dataset_tokens(cut), n)
                seen.update(extra)
                total += len(extra)
            results[n].append(len(seen) / total if total else 0.0)
    return sum(results[1]) / ITERATIONS, sum(results[2]) / ITERATIONS


def distinct_plain(lines: list[str]) -> tuple[float, float]:
    tokens = [line.lower().split() for line in lines]
    return (
        _ratio([g for t in tokens for g in _grams(t, 1)]),
        _ratio([g for t in tokens for g in _grams(t, 2)]),
    )


def _utterances(con) -> Rows:
    return rows(
        con,
        """select c.subset, c.system_id, c.conversation_id, t.role, t.text
                         from turns t join conversations c on t.conversation_id = c.conversation_id
                         where c.corpus = 'crsarena' and t.text is not null and not coalesce(t.is_image, false)
                         order by c.source_path, c.source_record_index, c.conversation_id, t.turn_index""",
    )


def expected_text_diversity(con) -> Rows:
    utterances = _utterances(con)
    scopes = defaultdict(list)
    for u in utterances:
        for subset in (ALL, u["subset"]):
            for system in (ALL, u["system_id"]) if u["system_id"] is not None else (ALL,):
                for side in ("all", u["role"]):
                    scopes[(subset, system, side)].append(u)
    out = []
    for (subset, system, side), us in scopes.items():
        lines = [u["text"] for u in us]
        n_words = sum(len(t.split()) for t in lines)
        base = {
            "subset": subset,
            "system_id": system,
            "side": side,
            "n_conversations": len({u["conversation_id"] for u in us}),
            "n_utterances": len(us),
            "n_words": n_words,
        }
        d1, d2 = distinct_dataset(lines)
        out.append(
            {
                **base,
                "variant": "dataset",
                "is_truncated": n_words > MAX_WORDS,
                "distinct_1": d1,
                "distinct_2": d2,
            }
        )
        p1, p2 = distinct_plain(lines)
        out.append(
            {**base, "variant": "plain", "is_truncated": False, "distinct_1": p1, "distinct_2": p2}
        )
    return out


_CACHE: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _cached(con, fn):
    """fn(con), computed once per connection (the published-figure checks ask hundreds of times)."""
    per_connection = _CACHE.setdefault(con, {})
    if fn.__name__ not in per_connection:
        per_connection[fn.__name__] = fn(con)
    return per_connection[fn.__name__]


def _text_diversity_cached(con) -> Rows:
    return _cached(con, expected_text_diversity)


# name -> (expectation, key columns, numeric key columns, columns in the CSV)
TABLES: dict = {
    "crsarena_dialogue_stats": (
        expected_dialogue_stats,
        ["environment", "system_id"],
        set(),
        [
            "environment",
            "system_id",
            "n_dialogues",
            "n_satisfied",
            "n_frustrated",
            "satisfied_share",
            "n_utterances",
            "utterances_mean",
            "utterances_median",
            "utterances_sd",
            "words_mean",
            "words_median",
            "words_sd",
        ],
    ),
    "crsarena_battle_counts": (
        expected_battle_counts,
        ["environment", "system_a", "system_b"],
        set(),
        [
            "environment",
            "system_a",
            "system_b",
            "n_votes",
            "n_battles",
            "n_wins_a",
            "n_wins_b",
            "n_ties",
        ],
    ),
    "crsarena_tie_shares": (
        expected_tie_shares,
        ["environment"],
        set(),
        ["environment", "n_battles", "n_ties", "tie_share"],
    ),
    "crsarena_vote_results": (
        expected_vote_results,
        ["environment", "vote_result"],
        set(),
        ["environment", "vote_result", "n_dialogues"],
    ),
    "crsarena_text_diversity": (
        _text_diversity_cached,
        ["subset", "system_id", "side", "variant"],
        set(),
        [
            "subset",
            "system_id",
            "side",
            "variant",
            "n_conversations",
            "n_utterances",
            "n_words",
            "is_truncated",
            "distinct_1",
            "distinct_2",
        ],
    ),
}


# --------------------------------------------------------------------------- published figures


def _stat(env: str, system: str, column: str) -> Any:
    return lambda con: next(
        (
            r[column]
            for r in _cached(con, expected_dialogue_stats)
            if r["environment"] == env and r["system_id"] == system
        ),
        None,
    )


def published_value(con, figure_id: str) -> float | None:
    def number(value) -> float | None:
        return None if value is None else float(value)

    m = re.fullmatch(r"crsarena\.(satisfied|frustrated|satisfied_share)\.(\w+)\.(\w+)", figure_id)
    if m:
        column = {"satisfied": "n_satisfied", "frustrated": "n_frustrated"}.get(
            m.group(1), "satisfied_share"
        )
        return number(_stat(m.group(2), m.group(3), column)(con))
    m = re.fullmatch(r"crsarena\.(utterances|words)_(mean|median|sd)\.(\w+)\.(\w+)", figure_id)
    if m:
        return number(_stat(m.group(3), m.group(4), f"{m.group(1)}_{m.group(2)}")(con))
    m = re.fullmatch(r"crsarena\.(utterances_per_dialogue|words_per_utterance)\.(\w+)", figure_id)
    if m:
        column = "utterances_mean" if m.group(1) == "utterances_per_dialogue" else "words_mean"
        return number(_stat(m.group(2), ALL, column)(con))
    m = re.fullmatch(r"crsarena\.(battles|tie_share)\.(\w+)", figure_id)
    if m:
        found = [r for r in _cached(con, expected_tie_shares) if r["environment"] == m.group(2)]
        return (
            number(found[0]["n_battles" if m.group(1) == "battles" else "tie_share"])
            if found
            else None
        )
    m = re.fullmatch(r"crsarena\.battle_matrix\.(\w+)\.(\w+)", figure_id)
    if m:
        found = [
            r["n_battles"]
            for r in _cached(con, expected_battle_counts)
            if r["environment"] == "combined"
            and r["system_a"] == m.group(1)
            and r["system_b"] == m.group(2)
        ]
        return number(found[0]) if found else None
    m = re.fullmatch(r"crsarena\.vote_result\.(\w+)\.(\w+)", figure_id)
    if m:
        env = {d["conversation_id"]: d["subset"] for d in _dialogues(con)}
        results = _cached(con, vote_result_per_dialogue)
        return float(sum(1 for c, r in results.items() if env[c] == m.group(1) and r == m.group(2)))
    m = re.fullmatch(r"crsarena\.distinct2\.(\w+)", figure_id)
    if m:
        lines = [u["text"] for u in _utterances(con) if u["subset"] == m.group(1)]
        return distinct_dataset(lines)[1] if lines else None
    board = {
        (r["environment"], r["system_id"]): r
        for r in rows(
            con, "select environment, system_id, elo, satisfaction_rate from crs_leaderboard"
        )
    }
    if figure_id == "crsarena.corr.elo_satisfaction.spearman":
        # combined satisfaction recomputed from the dialogues; Elo from the leaderboard
        shares = {
            r["system_id"]: r["satisfied_share"]
            for r in _cached(con, expected_dialogue_stats)
            if r["environment"] == "combined" and r["system_id"] != ALL
        }
        systems = sorted(
            s
            for (e, s), r in board.items()
            if e == "global" and r["elo"] is not None and shares.get(s) is not None
        )
        return correlation(
            [board[("global", s)]["elo"] for s in systems],
            [shares[s] for s in systems],
            "spearman",
        )
    if figure_id == "crsarena.corr.wang2023":
        systems = sorted(
            s for s in RECALL_AT_10 if board.get(("global", s), {}).get("elo") is not None
        )
        return correlation(
            [board[("global", s)]["elo"] for s in systems],
            [RECALL_AT_10[s] for s in systems],
            "spearman",
        )
    return None
