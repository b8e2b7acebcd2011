"""The dashboard's query layer: every figure the dashboard shows comes from one function here.

Pages never compute numbers themselves: they call these functions and only lay the frames out
(formatting, pivoting long -> wide for display, charting). Each function takes a
:class:`Reader` (one read-only connection to the published warehouse) and returns a pandas
DataFrame or a plain dict.

Reading beside a build. ``csrwh build`` writes ``<warehouse>.building-<build id>`` and atomically
renames it over the published file. A :class:`Reader` therefore lives for one page run only
(``with Warehouse(path).open() as db: ...``): it opens a private in-memory DuckDB and
``ATTACH``es the published file ``READ_ONLY``. A private instance matters: plain
``duckdb.connect(path, read_only=True)`` goes through DuckDB's per-process instance cache, so
while any other connection to the old file is alive a new connect would silently return the
*old* (renamed-away) database. Attaching from a fresh in-memory instance always opens the
file that is at the path now, and a read-only attach never blocks a writer of the new file.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import duckdb
import pandas as pd

from csrwh.errors import CsrwhError

CATALOG = "wh"
CONNECT = "(open warehouse read-only)"
NONE_LABEL = "(none)"
FILTER_COLUMNS = {
    "corpus": "corpus",
    "subset": "subset",
    "language": "language",
    "domain": "domain_or_task",
}
ENVIRONMENTS = ("global", "open", "closed")

# ---------------------------------------------------------------------------------------------
# connection handling
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class QueryTiming:
    """One query (or the warehouse opening, name :data:`CONNECT`): wall-clock and process CPU
    milliseconds (CPU time does not grow when other processes compete for the machine)."""

    name: str
    wall_ms: float
    cpu_ms: float
    rows: int


QueryListener = Callable[[QueryTiming], None]
_listeners: list[QueryListener] = []


def add_listener(listener: QueryListener) -> None:
    """Call ``listener(QueryTiming)`` after every query and after opening the warehouse."""
    _listeners.append(listener)


def remove_listener(listener: QueryListener) -> None:
    if listener in _listeners:
        _listeners.remove(listener)


@dataclass(frozen=True)
class Stamp:
    """Identity of the file at the warehouse path: changes when a build publishes."""

    mtime_ns: int
    size: int
    inode: int


class Reader:
    """One read-only view of the published warehouse (open for one page run, then closed)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        started, cpu = time.perf_counter(), time.process_time()
        self._con = duckdb.connect(":memory:")
        try:
            self._con.execute(f"attach '{_sql_string(str(path))}' as {CATALOG} (read_only)")
            self._con.execute(f"use {CATALOG}")
            self._con.execute("set TimeZone = 'UTC'")
        except duckdb.Error as exc:
            self._con.close()
            raise CsrwhError(
                f"cannot open {path} read-only: {str(exc).splitlines()[0]}",
                hint="is it a DuckDB warehouse written by `csrwh build`?",
            ) from exc
        self.connect_ms = (time.perf_counter() - started) * 1000
        timing = QueryTiming(CONNECT, self.connect_ms, (time.process_time() - cpu) * 1000, 0)
        for listener in _listeners:
            listener(timing)
        self._tables: set[tuple[str, str]] | None = None

    def close(self) -> None:
        self._con.close()

    def df(self, name: str, sql: str, params: Sequence[Any] = ()) -> pd.DataFrame:
        """Run ``sql`` (named ``name`` for timings) and return a DataFrame."""
        started, cpu = time.perf_counter(), time.process_time()
        frame = self._con.execute(sql, list(params)).df()
        timing = QueryTiming(
            name,
            (time.perf_counter() - started) * 1000,
            (time.process_time() - cpu) * 1000,
            len(frame),
        )
        for listener in _listeners:
            listener(timing)
        return frame

    def tables(self) -> set[tuple[str, str]]:
        """(schema, table) of every table and view in the warehouse."""
        if self._tables is None:
            frame = self.df(
                "catalog_tables",
                "select schema_name, table_name from duckdb_tables() where database_name = ? "
                "union all select schema_name, view_name from duckdb_views() "
                "where database_name = ? and not internal",
                [CATALOG, CATALOG],
            )
            self._tables = set(zip(frame["schema_name"], frame["table_name"]))
        return self._tables

    def has_table(self, name: str, schema: str = "main") -> bool:
        return (schema, name) in self.tables()

    def columns(self, name: str, schema: str = "main") -> list[str]:
        frame = self.df(
            "catalog_columns",
            "select column_name from duckdb_columns() where database_name = ? and schema_name = ? "
            "and table_name = ? order by column_index",
            [CATALOG, schema, name],
        )
        return frame["column_name"].tolist()


class Warehouse:
    """The published warehouse file; hands out short-lived read-only :class:`Reader` s."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path).expanduser().resolve()

    def exists(self) -> bool:
        return self.path.is_file()

    def stamp(self) -> Stamp | None:
        try:
            st = self.path.stat()
        except FileNotFoundError:
            return None
        return Stamp(st.st_mtime_ns, st.st_size, st.st_ino)

    @contextmanager
    def open(self) -> Iterator[Reader]:
        if not self.exists():
            raise CsrwhError(
                f"warehouse {self.path} does not exist",
                hint="build it first: make demo (sample data) or make build (real corpora)",
            )
        reader = Reader(self.path)
        try:
            yield reader
        finally:
            reader.close()


def _sql_string(value: str) -> str:
    return value.replace("'", "''")


# ---------------------------------------------------------------------------------------------
# filters
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Filters:
    """Conversation filters; an empty tuple means "all". NULL values are selected as '(none)'."""

    corpus: tuple[str, ...] = ()
    subset: tuple[str, ...] = ()
    language: tuple[str, ...] = ()
    domain: tuple[str, ...] = ()

    def where(self, alias: str = "c") -> tuple[str, list[str]]:
        """SQL predicate over `conversations` (aliased ``alias``) and its parameters."""
        clauses, params = [], []
        for attr, column in FILTER_COLUMNS.items():
            values = getattr(self, attr)
            if values:
                marks = ", ".join("?" for _ in values)
                clauses.append(f"coalesce({alias}.{column}, '{NONE_LABEL}') in ({marks})")
                params.extend(values)
        return (" and ".join(clauses) or "true"), params

    def is_empty(self) -> bool:
        return not any(getattr(self, attr) for attr in FILTER_COLUMNS)


def filter_options(db: Reader) -> pd.DataFrame:
    """Every (corpus, subset, language, domain) combination with its conversation count; the
    filter widgets take their options from it."""
    return db.df(
        "filter_options",
        f"""
        select corpus, subset, coalesce(language, '{NONE_LABEL}') as language,
               coalesce(domain_or_task, '{NONE_LABEL}') as domain, count(*) as n_conversations
        from conversations group by all order by all
        """,
    )


# ---------------------------------------------------------------------------------------------
# build info (sidebar)
# ---------------------------------------------------------------------------------------------


def build_info(db: Reader) -> dict[str, Any] | None:
    if not db.has_table("build_info"):
        return None
    # timestamps with time zone are shown as UTC wall-clock time
    frame = db.df(
        "build_info",
        "select * replace (cast(built_at as timestamp) as built_at) from build_info order by built_at desc limit 1",
    )
    return None if frame.empty else frame.iloc[0].to_dict()


# ---------------------------------------------------------------------------------------------
# page: corpus overview
# ---------------------------------------------------------------------------------------------


def overview(db: Reader, filters: Filters = Filters()) -> dict[str, Any]:
    """Conversation and utterance counts from `conversations` under the filters: ``totals``
    (one dict) and ``breakdown`` (per corpus, subset, language, domain). One query, grouping
    sets, so the totals are exactly the sum of the breakdown."""
    where, params = filters.where("c")
    frame = db.df(
        "overview",
        f"""
        select grouping(corpus, subset, language, domain_or_task) = 15 as is_total,
               corpus, subset, coalesce(language, '{NONE_LABEL}') as language,
               coalesce(domain_or_task, '{NONE_LABEL}') as domain,
               count(*) as n_conversations,
               coalesce(sum(n_turns), 0)::bigint as n_utterances,
               coalesce(sum(n_user_turns), 0)::bigint as n_user_utterances,
               coalesce(sum(n_system_turns), 0)::bigint as n_system_utterances,
               count(distinct corpus) as n_corpora
        from conversations c
        where {where}
        group by grouping sets ((corpus, subset, language, domain_or_task), ())
        order by is_total desc, corpus, subset, language, domain
        """,
        params,
    )
    total = frame[frame["is_total"]]
    totals = (
        total.iloc[0][
            [
                "n_conversations",
                "n_utterances",
                "n_user_utterances",
                "n_system_utterances",
                "n_corpora",
            ]
        ]
        .astype(int)
        .to_dict()
    )
    breakdown = (
        frame[~frame["is_total"]].drop(columns=["is_total", "n_corpora"]).reset_index(drop=True)
    )
    return {"totals": totals, "breakdown": breakdown}


CORPUS_STATS_RATIOS = (
    "mean_turns_per_conversation",
    "mean_user_turns_per_conversation",
    "mean_merged_turns_per_conversation",
    "mean_words_per_user_turn",
    "mean_words_per_system_turn",
    "intent_annotated_share",
    "rated_share",
    "annotated_share",
)


def corpus_stats(db: Reader, filters: Filters = Filters()) -> pd.DataFrame:
    """The `corpus_stats` mart's per-subset means and shares (its counts are not repeated: the
    overview's counts come from :func:`overview`), for the subsets the filters select."""
    where, params = filters.where("c")
    cols = ", ".join(f"s.{c}" for c in CORPUS_STATS_RATIOS)
    return db.df(
        "corpus_stats",
        f"""
        select s.corpus, s.subset, {cols}
        from corpus_stats s
        where (s.corpus, s.subset) in (select c.corpus, c.subset from conversations c where {where})
        order by s.corpus, s.subset
        """,
        params,
    )


# ---------------------------------------------------------------------------------------------
# page: conversation browser
# ---------------------------------------------------------------------------------------------


_RE2_SPECIAL = set("\\.^$|?*+()[]{}")


def search_conversations(
    db: Reader, text: str = "", filters: Filters = Filters(), limit: int = 200
) -> pd.DataFrame:
    """Conversations under the filters whose id or any utterance contains ``text``
    (case-insensitive); ``n_hits`` matching utterances, ``snippet`` of the first one (of the
    first utterance when ``text`` is empty) and ``n_matches`` (all matches, before ``limit``)."""
    where, params = filters.where("c")
    needle = text.strip()
    if needle:
        # a case-insensitive RE2 search for the literal text: ~2.5x faster than ILIKE here
        pattern = "(?i)" + "".join("\\" + ch if ch in _RE2_SPECIAL else ch for ch in needle)
        hits = """
            select t.conversation_id, count(*) as n_hits, min(t.turn_index) as first_turn
            from turns t where regexp_matches(t.text, ?) group by 1
        """
        hit_params: list[Any] = [pattern]
        id_match = "or regexp_matches(c.conversation_id, ?)"
        id_params: list[Any] = [pattern]
        join = "left join hits h on h.conversation_id = c.conversation_id"
        keep = f"and (h.conversation_id is not null {id_match})"
    else:
        hits = "select null::varchar as conversation_id, 0 as n_hits, 0 as first_turn where false"
        hit_params, id_params = [], []
        join = "left join hits h on h.conversation_id = c.conversation_id"
        keep = ""
    return db.df(
        "search_conversations",
        f"""
        with hits as ({hits})
        select c.conversation_id, c.corpus, c.subset, c.language, c.domain_or_task, c.system_id,
               c.n_turns, coalesce(h.n_hits, 0) as n_hits,
               left(t.text, 200) as snippet,
               count(*) over () as n_matches
        from conversations c
        {join}
        left join turns t on t.conversation_id = c.conversation_id
                         and t.turn_index = coalesce(h.first_turn, 0)
        where {where} {keep}
        order by c.corpus, c.subset, c.conversation_id
        limit ?
        """,
        [*hit_params, *params, *id_params, limit],
    )


def conversation(db: Reader, conversation_id: str) -> dict[str, Any] | None:
    frame = db.df(
        "conversation", "select * from conversations where conversation_id = ?", [conversation_id]
    )
    return None if frame.empty else frame.iloc[0].to_dict()


def conversation_turns(db: Reader, conversation_id: str) -> pd.DataFrame:
    """The conversation's utterances in order."""
    return db.df(
        "conversation_turns",
        """
        select turn_index, role, text, text_translation, is_image, n_words, created_at
        from turns where conversation_id = ? order by turn_index
        """,
        [conversation_id],
    )


def conversation_intents(db: Reader, conversation_id: str) -> pd.DataFrame:
    """Every intent label of the conversation's turns (one row per turn x annotator x label),
    with the turn's consensus family and agreement from `intent_consensus`."""
    return db.df(
        "conversation_intents",
        """
        select i.turn_index, i.annotator, i.label_scheme, i.raw_label, i.intent_family,
               i.is_primary, i.source, i.standalone_query,
               ic.majority_family, ic.n_agreeing, ic.n_annotators
        from intents i
        left join intent_consensus ic
               on ic.conversation_id = i.conversation_id and ic.turn_index = i.turn_index
              and ic.label_scheme = i.label_scheme
        where i.conversation_id = ?
        order by i.turn_index, i.label_scheme, not i.is_primary, i.annotator, i.raw_label
        """,
        [conversation_id],
    )


def conversation_ratings(db: Reader, conversation_id: str) -> pd.DataFrame:
    """Every rating of the conversation (turn_index NULL = conversation level)."""
    return db.df(
        "conversation_ratings",
        """
        select turn_index, aspect, rater_kind, rater_id, item_id, value, scale_min, scale_max,
               value_normalized, higher_is_better
        from ratings where conversation_id = ?
        order by turn_index nulls first, aspect, rater_kind, rater_id
        """,
        [conversation_id],
    )


def conversation_rating_means(db: Reader, conversation_id: str) -> pd.DataFrame:
    """Conversation-level ratings per aspect: raters and mean (shown above the turns)."""
    return db.df(
        "conversation_rating_means",
        """
        select aspect, rater_kind, count(*) as n_ratings, avg(value) as mean_value,
               any_value(scale_min) as scale_min, any_value(scale_max) as scale_max,
               any_value(higher_is_better) as higher_is_better
        from ratings where conversation_id = ? and turn_index is null
        group by aspect, rater_kind order by aspect, rater_kind
        """,
        [conversation_id],
    )


def conversation_votes(db: Reader, conversation_id: str) -> pd.DataFrame:
    """CRSArena battles the conversation took part in, from this conversation's side."""
    return db.df(
        "conversation_votes",
        """
        select environment, voted_at,
               case when conversation_id_a = ? then system_a else system_b end as system_id,
               case when conversation_id_a = ? then system_b else system_a end as opponent,
               case when winner = 'tie' then 'tie'
                    when (winner = 'a') = (conversation_id_a = ?) then 'win' else 'loss' end as result,
               feedback, is_duplicate
        from votes where conversation_id_a = ? or conversation_id_b = ?
        order by vote_order
        """,
        [conversation_id] * 5,
    )


# ---------------------------------------------------------------------------------------------
# page: CRS Arena
# ---------------------------------------------------------------------------------------------


def arena_environments(db: Reader) -> list[str]:
    frame = db.df("arena_environments", "select distinct environment from crs_leaderboard")
    present = set(frame["environment"])
    return [e for e in ENVIRONMENTS if e in present] + sorted(present - set(ENVIRONMENTS))


def leaderboard(db: Reader, environment: str = "global") -> pd.DataFrame:
    """The `crs_leaderboard` mart for one environment, best Elo first (systems without battles
    last), with the number of systems that had battles there."""
    return db.df(
        "leaderboard",
        """
        select system_id, elo_rank, elo, bt_strength, bt_ci_low, bt_ci_high, battles, wins, ties,
               losses, win_rate, n_conversations, satisfaction_rate,
               count(*) filter (where battles > 0) over () as n_systems_with_battles
        from crs_leaderboard where environment = ?
        order by elo_rank nulls last, elo desc nulls last, system_id
        """,
        [environment],
    )


def head_to_head(db: Reader, environment: str = "global") -> pd.DataFrame:
    """Pairwise record from `votes` (every row, duplicates included, like the leaderboard):
    one row per (system, opponent) with battles, wins, ties, losses and win_rate of `system`.
    ``global`` = both environments. A system's battles summed over opponents equal its
    leaderboard battles."""
    return db.df(
        "head_to_head",
        """
        with v as (select * from votes where ? = 'global' or environment = ?),
        sides as (
            select system_a as system_id, system_b as opponent,
                   case winner when 'a' then 'win' when 'b' then 'loss' else 'tie' end as result
            from v
            union all
            select system_b, system_a,
                   case winner when 'b' then 'win' when 'a' then 'loss' else 'tie' end
            from v
        )
        select system_id, opponent, count(*) as battles,
               count(*) filter (where result = 'win') as wins,
               count(*) filter (where result = 'tie') as ties,
               count(*) filter (where result = 'loss') as losses,
               count(*) filter (where result = 'win') / count(*) as win_rate
        from sides group by all order by system_id, opponent
        """,
        [environment, environment],
    )


# ---------------------------------------------------------------------------------------------
# page: intents and agreement
# ---------------------------------------------------------------------------------------------


def _corpus_clause(corpora: Sequence[str], column: str = "corpus") -> tuple[str, list[str]]:
    if not corpora:
        return "true", []
    return f"{column} in ({', '.join('?' for _ in corpora)})", list(corpora)


def intent_corpora(db: Reader) -> list[str]:
    frame = db.df("intent_corpora", "select distinct corpus from intent_distribution order by 1")
    return frame["corpus"].tolist()


def intent_distribution(db: Reader, corpora: Sequence[str] = ()) -> pd.DataFrame:
    """The `intent_distribution` mart (primary labels per corpus and scheme)."""
    where, params = _corpus_clause(corpora)
    return db.df(
        "intent_distribution",
        f"""
        select corpus, label_scheme, intent_family, raw_label, n_labels, n_turns, share_of_labels
        from intent_distribution where {where}
        order by corpus, label_scheme, n_labels desc, raw_label
        """,
        params,
    )


def annotator_agreement(db: Reader, corpora: Sequence[str] = ()) -> pd.DataFrame:
    """The `annotator_agreement` mart (Fleiss' kappa, Krippendorff's alpha)."""
    where, params = _corpus_clause(corpora)
    return db.df(
        "annotator_agreement",
        f"""
        select corpus, subject, measure, value, n_units, n_raters_mean, n_ratings
        from annotator_agreement where {where} order by corpus, measure, subject
        """,
        params,
    )


def intent_consensus_summary(db: Reader, corpora: Sequence[str] = ()) -> pd.DataFrame:
    """The `intent_consensus_summary` mart (also the report's table of that name): per corpus and
    scheme, labelled turns, turns with two or more annotators, mean annotators and, over the
    turns with two or more, the mean agreeing share and the unanimous share."""
    where, params = _corpus_clause(corpora)
    return db.df(
        "intent_consensus_summary",
        f"""
        select corpus, label_scheme, n_turns, n_turns_multi, mean_annotators,
               mean_agreement_share, unanimous_share
        from intent_consensus_summary where {where}
        order by corpus, label_scheme
        """,
        params,
    )


# ---------------------------------------------------------------------------------------------
# page: ratings by aspect
# ---------------------------------------------------------------------------------------------


def rating_corpora(db: Reader) -> list[str]:
    return db.df("rating_corpora", "select distinct corpus from ratings order by 1")[
        "corpus"
    ].tolist()


def ratings_totals(db: Reader, corpora: Sequence[str] = ()) -> dict[str, int]:
    """Ratings, rated conversations and distinct (corpus, aspect) pairs in the chosen corpora."""
    where, params = _corpus_clause(corpora)
    frame = db.df(
        "ratings_totals",
        f"""
        select count(*) as n_ratings, count(distinct conversation_id) as n_conversations,
               count(distinct (corpus, aspect)) as n_aspects
        from ratings where {where}
        """,
        params,
    )
    return {k: int(v) for k, v in frame.iloc[0].to_dict().items()}


def ratings_by_aspect(db: Reader, corpora: Sequence[str] = ()) -> pd.DataFrame:
    """The `rating_summary` mart (also the report's table of that name): per corpus, aspect,
    rater kind and level (conversation / turn), ratings, rated conversations, mean on the
    aspect's own scale and mean normalised value."""
    where, params = _corpus_clause(corpora)
    return db.df(
        "ratings_by_aspect",
        f"""
        select corpus, aspect, rater_kind, level, n_ratings, n_conversations, mean_value,
               mean_normalized, scale_min, scale_max, higher_is_better
        from rating_summary where {where}
        order by corpus, aspect, rater_kind, level
        """,
        params,
    )


def rating_distribution(db: Reader, corpus: str, aspect: str) -> pd.DataFrame:
    """How often each value was given for one aspect, per rater kind."""
    return db.df(
        "rating_distribution",
        """
        select value, rater_kind, count(*) as n_ratings
        from ratings where corpus = ? and aspect = ?
        group by all order by value, rater_kind
        """,
        [corpus, aspect],
    )


def quality_by_length(db: Reader, corpus: str, aspect: str) -> pd.DataFrame:
    """The `quality_by_length` mart for one corpus and aspect."""
    return db.df(
        "quality_by_length",
        """
        select n_user_turns, n_conversations, n_ratings, mean_value, mean_value_normalized
        from quality_by_length where corpus = ? and aspect = ? order by n_user_turns
        """,
        [corpus, aspect],
    )


# ---------------------------------------------------------------------------------------------
# page: ConvSearch search behaviour
# ---------------------------------------------------------------------------------------------


def search_summary(db: Reader) -> dict[str, Any]:
    """Headline counts of the search marts."""
    frame = db.df(
        "search_summary",
        """
        select (select count(*) from search_queries) as n_queries,
               (select count(distinct conversation_id) from search_queries) as n_conversations,
               (select count(*) from serp_views) as n_serp_views,
               (select count(*) from result_clicks) as n_clicks,
               (select count(*) from landing_page_views) as n_landing_pages,
               (select avg(has_click::int) from search_queries) as click_share,
               (select avg(helpfulness) from landing_page_views) as mean_helpfulness
        """,
    )
    row = frame.iloc[0].to_dict()
    return {
        k: (int(v) if k.startswith("n_") else (None if pd.isna(v) else float(v)))
        for k, v in row.items()
    }


def search_engines(db: Reader) -> pd.DataFrame:
    """Per search engine: queries, share with a click, mean query length."""
    return db.df(
        "search_engines",
        """
        select source_engine, count(*) as n_queries, avg(has_click::int) as click_share,
               avg(n_words) as mean_query_words
        from search_queries group by 1 order by n_queries desc, source_engine
        """,
    )


def search_turns(db: Reader) -> pd.DataFrame:
    """Turns that issued queries (the chooser): conversation, turn, queries and the turn's text."""
    return db.df(
        "search_turns",
        """
        select q.conversation_id, q.turn_index, count(*) as n_queries,
               left(any_value(t.text), 80) as turn_text
        from search_queries q
        left join turns t on t.conversation_id = q.conversation_id and t.turn_index = q.turn_index
        group by q.conversation_id, q.turn_index
        order by try_cast(split_part(q.conversation_id, ':', 2) as bigint) nulls last,
                 q.conversation_id, q.turn_index nulls last
        """,
    )


def search_trail(
    db: Reader, conversation_id: str, turn_index: int | None
) -> dict[str, pd.DataFrame]:
    """query -> SERP -> clicks -> landing pages for one turn (``turn_index`` None = queries whose
    turn is unknown). Keys: queries, serp_views, clicks, landing_pages, turn."""
    turn_pred = "q.turn_index = ?" if turn_index is not None else "q.turn_index is null"
    params: list[Any] = [conversation_id] + ([int(turn_index)] if turn_index is not None else [])
    qsel = f"select q.query_id from search_queries q where q.conversation_id = ? and {turn_pred}"
    return {
        "turn": db.df(
            "search_trail_turn",
            "select turn_index, role, text from turns where conversation_id = ? and turn_index = ?",
            [conversation_id, -1 if turn_index is None else int(turn_index)],
        ),
        "queries": db.df(
            "search_trail_queries",
            f"""
            select q.query_id, q.queried_at, q.source_engine, q.query_text, q.n_words, q.has_click
            from search_queries q where q.conversation_id = ? and {turn_pred}
            order by q.queried_at, q.query_id
            """,
            params,
        ),
        "serp_views": db.df(
            "search_trail_serps",
            f"""
            select s.query_id, s.serp_view_id, s.page_number, s.started_at, s.dwell_ms, s.url
            from serp_views s where s.query_id in ({qsel}) order by s.started_at, s.serp_view_id
            """,
            params,
        ),
        "clicks": db.df(
            "search_trail_clicks",
            f"""
            select c.query_id, c.serp_view_id, c.rank, c.click_type, c.url
            from result_clicks c where c.query_id in ({qsel}) order by c.serp_view_id, c.click_id
            """,
            params,
        ),
        "landing_pages": db.df(
            "search_trail_landing",
            f"""
            select l.query_id, l.landing_page_view_id, l.started_at, l.dwell_ms, l.helpfulness, l.url
            from landing_page_views l where l.query_id in ({qsel})
            order by l.started_at, l.landing_page_view_id
            """,
            params,
        ),
    }


# ---------------------------------------------------------------------------------------------
# page: data health
# ---------------------------------------------------------------------------------------------

DQ_TABLE = "dq_results"
#: `main.dq_results` exactly as csrwh/building/gate/run.py creates it (one row per expectation and run;
#: documented in docs/ARCHITECTURE.md, "Data-quality results"). The page reads these columns
#: and no others; tests/unit/test_dashboard.py checks them against the writer's DDL.
DQ_COLUMNS = (
    "run_id",
    "validated_at",
    "suite",
    "table_name",
    "expectation",
    "expectation_type",
    "severity",
    "success",
    "observed_value",
    "offending_rows",
    "error",
    "why",
)


def has_dq_results(db: Reader) -> bool:
    """Whether the warehouse has `main.dq_results` (False: built without the expectations gate).

    Raises:
        CsrwhError: the table lacks one of :data:`DQ_COLUMNS` (names them).
    """
    if not db.has_table(DQ_TABLE):
        return False
    missing = [c for c in DQ_COLUMNS if c not in db.columns(DQ_TABLE)]
    if missing:
        raise CsrwhError(
            f"main.{DQ_TABLE} in {db.path} lacks the documented column(s) {', '.join(missing)}",
            hint="it is written by csrwh/building/gate/run.py: rebuild or re-validate with this version",
        )
    return True


def dq_runs(db: Reader) -> pd.DataFrame:
    """One row per validation run, newest first: expectations, passed, failed by severity."""
    return db.df(
        "dq_runs",
        f"""
        select run_id, max(validated_at)::timestamp as validated_at, count(*) as n_expectations,
               count(*) filter (where success) as n_passed,
               count(*) filter (where not success and severity = 'critical') as n_critical_failed,
               count(*) filter (where not success and severity <> 'critical') as n_other_failed,
               count(distinct suite) as n_suites
        from {DQ_TABLE} group by run_id order by validated_at desc nulls last, run_id desc
        """,
    )


def dq_results(db: Reader, run_id: str) -> pd.DataFrame:
    """The run's outcomes, failures first (critical before warnings)."""
    return db.df(
        "dq_results",
        f"""
        select suite, expectation, severity, success, observed_value::varchar as observed_value,
               table_name, expectation_type, error, why
        from {DQ_TABLE} where run_id = ?
        order by success, severity <> 'critical', suite, expectation
        """,
        [run_id],
    )


def dq_suites(db: Reader, run_id: str) -> pd.DataFrame:
    """Per suite of the run: expectations, passed, failed."""
    return db.df(
        "dq_suites",
        f"""
        select suite, count(*) as n_expectations, count(*) filter (where success) as n_passed,
               count(*) filter (where not success) as n_failed
        from {DQ_TABLE} where run_id = ? group by suite order by n_failed desc, suite
        """,
        [run_id],
    )


def rejected_records(db: Reader) -> pd.DataFrame | None:
    """The `rejected_records_summary` mart: records the ingest rejected, per corpus and raw
    table, most first (None when the warehouse predates the mart)."""
    if not db.has_table("rejected_records_summary"):
        return None
    return db.df(
        "rejected_records",
        """
        select corpus, table_name, n_rejected, n_files, example_error, first_rejected_at,
               last_rejected_at
        from rejected_records_summary order by n_rejected desc, corpus, table_name
        """,
    )


# ---------------------------------------------------------------------------------------------
# page: leaderboard of saved run evaluations (`csrwh eval --save`; the evaluations sidecar)
# ---------------------------------------------------------------------------------------------

EVAL_KIND_ORDER = ("all", "search", "recommendation")


def evals_path(warehouse: str | os.PathLike[str]) -> Path:
    """The evaluations sidecar of ``warehouse``: ``<warehouse stem>.evals.duckdb`` beside it
    (a Reader over it reads the saved evaluations; builds never touch it)."""
    from csrwh.reading.evaluate import sidecar_path

    return sidecar_path(Path(warehouse))


def eval_kinds(db: Reader) -> list[str]:
    """Judgment kinds with saved evaluations (all, search, recommendation first); [] when the
    file holds no ``eval_runs`` table."""
    if not db.has_table("eval_runs"):
        return []
    kinds = db.df("eval_kinds", "select distinct kind from eval_runs")["kind"].tolist()
    return sorted(
        kinds, key=lambda k: (EVAL_KIND_ORDER.index(k) if k in EVAL_KIND_ORDER else 99, k)
    )


def eval_leaderboard(db: Reader, kind: str = "all") -> pd.DataFrame:
    """Aggregate score of every saved run on ``kind``, long: one row per run and measure, with
    the run's topic counts, build and time (best value first per measure)."""
    return db.df(
        "eval_leaderboard",
        """
        select runs.run_name, scores.measure, scores.value,
               runs.n_topics_evaluated, runs.n_topics_qrels, runs.n_topics_missing,
               runs.build_id, cast(runs.saved_at as timestamp) as saved_at, runs.run_path, runs.run_sha256
        from eval_runs as runs
        inner join eval_scores as scores
            on runs.run_name = scores.run_name and runs.kind = scores.kind and scores.topic_id is null
        where runs.kind = ?
        order by scores.measure, scores.value desc nulls last, runs.run_name
        """,
        [kind],
    )


def eval_topic_scores(db: Reader, run_name: str, kind: str = "all") -> pd.DataFrame:
    """Per-topic values of one saved run on ``kind``, long (topic, measure, value)."""
    return db.df(
        "eval_topic_scores",
        """
        select topic_id, measure, value from eval_scores
        where run_name = ? and kind = ? and topic_id is not null
        order by topic_id, measure
        """,
        [run_name, kind],
    )
