"""Expected report tables of the overview sections and the published figures that are not a
corpus oracle's, recomputed from plain row queries of the marts in Python (see
``report_expected``, which compares the report's CSVs with them)."""

from __future__ import annotations

import statistics
from collections import Counter, defaultdict

from report_oracle import CORPORA as ORACLE_CORPORA
from report_oracle.common import Rows, correlation, mean, quantile, rows
from report_oracle.intervals import t_interval, wilson


def expected_conversation_length(con) -> Rows:
    by = defaultdict(list)
    for r in rows(con, "select corpus, n_turns, n_user_turns, n_merged_turns from conversations"):
        by[r["corpus"]].append(r)
    out = []
    for corpus, rs in by.items():
        turns = [r["n_turns"] for r in rs]
        out.append(
            {
                "corpus": corpus,
                "n_conversations": len(rs),
                "mean_turns": mean(turns),
                "median_turns": statistics.median(turns),
                "p90_turns": quantile(turns, 0.9),
                "max_turns": max(turns),
                "mean_user_turns": mean([r["n_user_turns"] for r in rs]),
                "mean_merged_turns": mean([r["n_merged_turns"] for r in rs]),
            }
        )
    return out


def expected_utterance_length(con) -> Rows:
    by = defaultdict(list)
    for r in rows(con, "select corpus, role, n_words, n_chars from turns"):
        by[(r["corpus"], r["role"])].append(r)
    out = []
    for (corpus, role), rs in by.items():
        words = [r["n_words"] for r in rs if r["n_words"] is not None]
        chars = [r["n_chars"] for r in rs if r["n_chars"] is not None]
        out.append(
            {
                "corpus": corpus,
                "role": role,
                "n_utterances": len(rs),
                "mean_words": mean(words),
                "median_words": statistics.median(words) if words else None,
                "p90_words": quantile(words, 0.9),
                "max_words": max(words) if words else None,
                "mean_chars": mean(chars),
            }
        )
    return out


def expected_intent_consensus_summary(con) -> Rows:
    by = defaultdict(list)
    for r in rows(
        con,
        "select corpus, label_scheme, n_annotators, agreement_share, is_unanimous from intent_consensus",
    ):
        by[(r["corpus"], r["label_scheme"])].append(r)
    out = []
    for (corpus, scheme), rs in by.items():
        multi = [r for r in rs if r["n_annotators"] >= 2]
        out.append(
            {
                "corpus": corpus,
                "label_scheme": scheme,
                "n_turns": len(rs),
                "n_turns_multi": len(multi),
                "mean_annotators": mean([r["n_annotators"] for r in rs]),
                "mean_agreement_share": mean([r["agreement_share"] for r in multi]),
                "unanimous_share": mean([1.0 if r["is_unanimous"] else 0.0 for r in multi]),
            }
        )
    return out


def _ratings(con) -> Rows:
    return rows(
        con,
        "select corpus, rater_kind, aspect, turn_index, conversation_id, value, value_normalized, "
        "scale_min, scale_max, higher_is_better from ratings",
    )


def expected_rating_summary(con) -> Rows:
    by = defaultdict(list)
    for r in _ratings(con):
        level = "conversation" if r["turn_index"] is None else "turn"
        by[(r["corpus"], r["rater_kind"], r["aspect"], level)].append(r)
    return [
        {
            "corpus": c,
            "rater_kind": k,
            "aspect": a,
            "level": lv,
            "n_ratings": len(rs),
            "n_conversations": len({r["conversation_id"] for r in rs}),
            "scale_min": min(r["scale_min"] for r in rs),
            "scale_max": max(r["scale_max"] for r in rs),
            "mean_value": mean([r["value"] for r in rs]),
            "mean_normalized": mean([r["value_normalized"] for r in rs]),
            "higher_is_better": all(r["higher_is_better"] for r in rs),
        }
        for (c, k, a, lv), rs in by.items()
    ]


def expected_crsarena_conversations(con) -> Rows:
    by = defaultdict(list)
    for r in rows(
        con, "select subset, system_id, user_sentiment from conversations where corpus = 'crsarena'"
    ):
        by[(r["subset"], r["system_id"])].append(r["user_sentiment"])
    out = []
    for (env, system), sentiments in by.items():
        given = [s for s in sentiments if s is not None]
        satisfied = sum(1 for s in given if s == "satisfied")
        low, high = wilson(satisfied, len(given))
        out.append(
            {
                "environment": env,
                "system_id": system,
                "n_conversations": len(sentiments),
                "n_with_sentiment": len(given),
                "n_satisfied": satisfied,
                "satisfaction_rate": satisfied / len(given) if given else None,
                "satisfaction_ci95_low": low,
                "satisfaction_ci95_high": high,
            }
        )
    return out


def expected_crsarena_open_closed_correlation(con) -> Rows:
    board = rows(con, "select environment, system_id, elo, satisfaction_rate from crs_leaderboard")
    if not rows(con, "select 1 from conversations where corpus = 'crsarena' limit 1"):
        return []
    value = {(r["environment"], r["system_id"]): r for r in board}
    systems = sorted({r["system_id"] for r in board})
    out = []
    for quantity, column in (("elo", "elo"), ("satisfaction", "satisfaction_rate")):
        pairs = [
            (value[("open", s)][column], value[("closed", s)][column])
            for s in systems
            if ("open", s) in value
            and ("closed", s) in value
            and value[("open", s)][column] is not None
            and value[("closed", s)][column] is not None
        ]
        x, y = [p[0] for p in pairs], [p[1] for p in pairs]
        for method in ("pearson", "spearman"):
            out.append(
                {
                    "quantity": quantity,
                    "method": method,
                    "coefficient": correlation(x, y, method),
                    "n_systems": len(pairs),
                }
            )
    return out


def expected_convsearch_search_behaviour(con) -> Rows:
    dialogues = [
        r["conversation_id"]
        for r in rows(con, "select conversation_id from conversations where corpus = 'convsearch'")
    ]
    queries = rows(con, "select conversation_id, has_click, n_words from search_queries")
    serps = Counter(
        r["conversation_id"] for r in rows(con, "select conversation_id from serp_views")
    )
    landings = Counter(
        r["conversation_id"] for r in rows(con, "select conversation_id from landing_page_views")
    )
    n_q = Counter(r["conversation_id"] for r in queries)
    n_c = Counter(r["conversation_id"] for r in queries if r["has_click"])
    per = {
        "queries": [n_q[d] for d in dialogues],
        "queries_with_clicks": [n_c[d] for d in dialogues],
        "serp_views": [serps[d] for d in dialogues],
        "landing_pages": [landings[d] for d in dialogues],
    }
    out = []
    if dialogues:
        for measure, values in per.items():
            out.append(
                {
                    "measure": measure,
                    "unit": "per dialogue",
                    "n": len(values),
                    "mean": mean(values),
                    "median": statistics.median(values),
                    "p90": quantile(values, 0.9),
                    "max": max(values),
                }
            )
    words = [r["n_words"] for r in queries if r["n_words"] is not None]
    if queries:
        out.append(
            {
                "measure": "words_per_query",
                "unit": "per query",
                "n": len(queries),
                "mean": mean(words),
                "median": statistics.median(words),
                "p90": quantile(words, 0.9),
                "max": max(words),
            }
        )
    return out


def expected_convsearch_click_through_by_rank(con) -> Rows:
    n_serps = len(rows(con, "select serp_view_id from serp_views"))
    clicks, serps = Counter(), defaultdict(set)
    for r in rows(con, "select rank, serp_view_id from result_clicks where click_type = 'content'"):
        clicks[r["rank"]] += 1
        serps[r["rank"]].add(r["serp_view_id"])
    return [
        {
            "rank": k,
            "n_clicks": n,
            "n_serp_views_clicked": len(serps[k]),
            "n_serp_views": n_serps,
            "click_through_rate": len(serps[k]) / n_serps,
            **dict(zip(("ci95_low", "ci95_high"), wilson(len(serps[k]), n_serps))),
        }
        for k, n in clicks.items()
    ]


def expected_convsearch_dwell_times(con) -> Rows:
    out = []
    for kind, table in (("serp", "serp_views"), ("landing_page", "landing_page_views")):
        ms = [
            r["dwell_ms"]
            for r in rows(con, f"select dwell_ms from {table} where dwell_ms is not null")
        ]
        if ms:
            out.append(
                {
                    "page_kind": kind,
                    "n_views": len(ms),
                    "mean_s": mean(ms) / 1000,
                    "p25_s": quantile(ms, 0.25) / 1000,
                    "median_s": statistics.median(ms) / 1000,
                    "p75_s": quantile(ms, 0.75) / 1000,
                    "p90_s": quantile(ms, 0.9) / 1000,
                }
            )
    return out


def _judgments(con) -> Rows:
    return rows(
        con,
        "select judgment_kind, topic_id, grade from relevance_judgments where corpus = 'cosrec'",
    )


def expected_cosrec_judged_items_per_topic(con) -> Rows:
    judged, relevant = defaultdict(Counter), defaultdict(Counter)
    for r in _judgments(con):
        judged[r["judgment_kind"]][r["topic_id"]] += 1
        relevant[r["judgment_kind"]][r["topic_id"]] += 1 if r["grade"] >= 1 else 0
    out = []
    for kind, per_topic in judged.items():
        sizes = list(per_topic.values())
        rel = [relevant[kind][t] for t in per_topic]
        out.append(
            {
                "judgment_kind": kind,
                "n_topics": len(sizes),
                "n_judgments": sum(sizes),
                "min_judged": min(sizes),
                "median_judged": statistics.median(sizes),
                "mean_judged": mean(sizes),
                "max_judged": max(sizes),
                "mean_relevant": mean(rel),
                "topics_without_relevant": sum(1 for x in rel if x == 0),
            }
        )
    return out


def expected_recoreact_rounds(con) -> Rows:
    domain = {
        r["conversation_id"]: r["subset"]
        for r in rows(
            con, "select conversation_id, subset from conversations where corpus = 'recoreact'"
        )
    }
    first_turn: dict[tuple[str, str], int] = {}
    turn_impression: dict[tuple[str, int], str] = {}
    for r in rows(
        con,
        "select conversation_id, turn_index, source_turn_id from turns where corpus = 'recoreact'",
    ):
        impression = r["source_turn_id"].split(":")[0]
        key = (r["conversation_id"], impression)
        first_turn[key] = min(first_turn.get(key, r["turn_index"]), r["turn_index"])
        turn_impression[(r["conversation_id"], r["turn_index"])] = impression
    round_of: dict[tuple[str, str], int] = {}
    per_conv = defaultdict(list)
    for (conv, impression), first in first_turn.items():
        per_conv[conv].append((first, impression))
    for conv, items in per_conv.items():
        for position, (_, impression) in enumerate(sorted(items), start=1):
            round_of[(conv, impression)] = position
    impressions = Counter((domain[c], round_of[(c, i)]) for (c, i) in first_turn)
    ratings = defaultdict(list)
    for r in rows(
        con,
        "select conversation_id, turn_index, aspect, value from ratings where corpus = 'recoreact' and turn_index is not null",
    ):
        impression = turn_impression.get((r["conversation_id"], r["turn_index"]))
        if impression is None:
            continue
        key = (
            domain[r["conversation_id"]],
            round_of[(r["conversation_id"], impression)],
            r["aspect"],
        )
        ratings[key].append(r["value"])
    interactions = rows(con, "select conversation_id, domain, round from item_interactions")
    selected = Counter((r["domain"], r["round"]) for r in interactions)
    # selections per impression (a user's round), zeros included
    per_impression = Counter((r["conversation_id"], r["round"]) for r in interactions)
    spread = defaultdict(list)
    for conv, impression in first_turn:
        round_ = round_of[(conv, impression)]
        spread[(domain[conv], round_)].append(per_impression[(conv, round_)])
    out = []
    for (d, rd), n in impressions.items():
        r1, r3, sel = (
            t_interval(ratings[(d, rd, "rating1")]),
            t_interval(ratings[(d, rd, "rating3")]),
            t_interval(spread[(d, rd)]),
        )
        out.append(
            {
                "domain": d,
                "round": rd,
                "n_impressions": n,
                "mean_rating1": mean(ratings[(d, rd, "rating1")]),
                "mean_rating2": mean(ratings[(d, rd, "rating2")]),
                "mean_rating3": mean(ratings[(d, rd, "rating3")]),
                "mean_rating_summary": mean(ratings[(d, rd, "rating_summary")]),
                "n_selected_items": selected[(d, rd)],
                "mean_selected_per_impression": selected[(d, rd)] / n,
                "rating1_ci95_low": r1[0],
                "rating1_ci95_high": r1[1],
                "rating3_ci95_low": r3[0],
                "rating3_ci95_high": r3[1],
                "selected_ci95_low": sel[0],
                "selected_ci95_high": sel[1],
            }
        )
    return out


# published figures: the warehouse side recomputed per figure id, without the notebook's registry
NOT_RECOMPUTED = object()  # figures that copy one mart cell: the golden files pin them


def expected_published_value(con, figure_id: str) -> float | None:
    def one(sql: str) -> float | None:
        value = con.execute(sql).fetchall()[0][0]
        return None if value is None else float(value)

    parts = figure_id.split(".")
    corpus = parts[0]
    conversations = rows(
        con,
        f"select subset, system_id, n_turns, n_user_turns, n_merged_turns from conversations where corpus = '{corpus}'",
    )
    if figure_id in ("cosrec.conversations", "crsarena.dialogues", "convsearch.dialogues"):
        return float(len(conversations))
    if corpus == "cosrec" and len(parts) == 3 and parts[1] in ("raw", "crowd", "curated"):
        sub = [c for c in conversations if c["subset"] == parts[1]]
        return (
            float(len(sub))
            if parts[2] == "conversations"
            else float(sum(c["n_turns"] for c in sub))
        )
    if figure_id == "cosrec.quality.conversations":
        return one(
            "select count(*) from (select distinct conversation_id from ratings where corpus = 'cosrec')"
        )
    if figure_id == "cosrec.qrels.conversations":
        return one(
            "select count(*) from (select distinct conversation_id from relevance_judgments "
            "where corpus = 'cosrec')"
        )
    if figure_id == "cosrec.qrels.judgments":
        return float(
            len(rows(con, "select judgment_id from relevance_judgments where corpus = 'cosrec'"))
        )
    if figure_id == "crsarena.systems":
        return float(len({c["system_id"] for c in conversations}))
    if figure_id == "crsarena.votes":
        return float(len(rows(con, "select vote_id from votes")))
    if parts[:2] == ["crsarena", "dialogues"]:
        env = parts[2]
        system = parts[3] if len(parts) > 3 else None
        return float(
            sum(
                1
                for c in conversations
                if c["subset"] == env and (system is None or c["system_id"] == system)
            )
        )
    if parts[:2] in (["crsarena", "elo"], ["crsarena", "elo_rank"]):
        return NOT_RECOMPUTED  # a copy of crs_leaderboard: pinned by the golden files
    if parts[:2] == ["crsarena", "corr"] and parts[2] in ("elo", "satisfaction"):
        for r in expected_crsarena_open_closed_correlation(con):
            if r["quantity"] == parts[2] and r["method"] == parts[3]:
                return r["coefficient"]
        return None
    n_dialogues = len(conversations)
    if corpus == "convsearch":
        queries = rows(con, "select has_click, n_words from search_queries")
        if not n_dialogues:
            return None
        if parts[1] == "turns":
            return mean([c["n_turns"] for c in conversations])
        if parts[1] == "merged_turns":
            return mean([c["n_merged_turns"] for c in conversations])
        if parts[1] == "queries":
            return len(queries) / n_dialogues
        if parts[1] == "clicked_queries":
            return sum(1 for q in queries if q["has_click"]) / n_dialogues
        if parts[1] == "query_words":
            return mean([q["n_words"] for q in queries if q["n_words"] is not None])
        if parts[1] == "landing_pages":
            return (
                len(rows(con, "select landing_page_view_id from landing_page_views")) / n_dialogues
            )
    if figure_id == "recoreact.users":
        return float(
            len(rows(con, "select distinct user_id from conversations where corpus = 'recoreact'"))
        )
    if figure_id == "recoreact.impressions":
        ids = {
            (r["conversation_id"], r["source_turn_id"].split(":")[0])
            for r in rows(
                con, "select conversation_id, source_turn_id from turns where corpus = 'recoreact'"
            )
        }
        return float(len(ids))
    if parts[:2] == ["recoreact", "items"]:
        return float(
            len(
                rows(
                    con,
                    f"select item_id from items where corpus = 'recoreact' and item_kind = '{parts[2]}'",
                )
            )
        )
    oracle = ORACLE_CORPORA.get(corpus)
    if oracle is not None and hasattr(oracle, "published_value"):
        return oracle.published_value(con, figure_id)
    return None  # not derivable


# the published-figures files, in the report's corpus order
