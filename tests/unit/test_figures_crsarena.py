"""CRSArena-Dial analyses without a build: the text_diversity model's Distinct-n against a
literal reading of the dataset's definition, its grain, the published-figures rows, and the
report section writing the same tables whatever the data."""

from __future__ import annotations

import csv
import random

import duckdb
import polars as pl
import pytest

from csrwh.config import PROJECT_ROOT
from csrwh.measures import distinct_n
from csrwh.measures.shuffles import LazySample
from csrwh.reading import report
from csrwh.reading.figures import COLUMNS, metrics, parse_args
from csrwh.reading.figures.render import corpus_renderer

MODEL = PROJECT_ROOT / "models" / "marts" / "measures" / "text_diversity.py"
PUBLISHED = PROJECT_ROOT / "notebooks" / "published_figures" / "crsarena.csv"


td = distinct_n  # the engine of the model (_load_model: the model itself)


# --------------------------------------------------------------------------- the definition, literally


def reference_distinct(lines: list[str], n: int) -> float:
    """CRSArena-Dial's truncated Distinct-n as its analysis calls it, written from the description:
    random.seed(42) once, 100 x random.sample(lines, len(lines)), each cut to 7,012 str.split()
    words, 'split' tokens lower-cased without '.' and newlines, mean of the 100 values."""
    rng = random.Random(42)
    values = []
    for _ in range(100):
        shuffled = rng.sample(lines, len(lines))
        kept, count = [], 0
        for line in shuffled:
            words = line.split()
            if count + len(words) <= 7012:
                kept.append(line)
                count += len(words)
            else:
                kept.append(" ".join(words[: 7012 - count]))
                break
        grams = []
        for line in kept:
            tokens = [
                t for t in line.lower().replace(".", "").replace("\n", "").split(" ") if t != ""
            ]
            grams += [tuple(tokens[i : i + n]) for i in range(len(tokens) - n + 1)]
        values.append(len(set(grams)) / len(grams) if grams else 0.0)
    return sum(values) / 100


def synthetic_lines(count: int, seed: int) -> list[str]:
    """Utterances with what the tokenisers treat differently: full stops, newlines (joined by the
    dataset tokeniser), tabs and no-break spaces (split by str.split() only), upper case, empty
    utterances and a long one."""
    rng = random.Random(seed)
    vocabulary = [
        "the",
        "Movie",
        "movie.",
        "I",
        "like",
        "a",
        "comedy",
        "Thriller",
        "e.g.",
        "Star Wars",
        "...",
        "recommend",
        "you",
        "It's",
        "nice",
        "horror",
        "film",
    ]
    separators = [" ", " ", " ", " ", "\n", "\t", "\u00a0", "  "]
    lines = []
    for i in range(count):
        if i % 97 == 5:
            lines.append("")
            continue
        length = 200 if i % 211 == 7 else rng.randint(1, 18)
        words = [rng.choice(vocabulary) for _ in range(length)]
        lines.append("".join(w + rng.choice(separators) for w in words).strip(" "))
    return lines


def _table(
    lines: list[str],
    roles: list[str] | None = None,
    systems: list[str | None] | None = None,
    subsets: list[str] | None = None,
) -> pl.DataFrame:
    n = len(lines)
    utterances = td.Utterances(
        corpus=["crsarena"] * n,
        subset=subsets or ["open"] * n,
        system_id=systems or ["kbrd_redial"] * n,
        conversation_id=[f"crsarena:c{i // 8}" for i in range(n)],
        role=roles or ["user" if i % 2 == 0 else "system" for i in range(n)],
        text=lines,
    )
    return pl.from_arrow(td.text_diversity(utterances))


def _pick(
    frame: pl.DataFrame,
    variant: str,
    side: str = "all",
    subset: str = "(all)",
    system: str = "(all)",
) -> dict:
    return frame.filter(
        (pl.col("variant") == variant)
        & (pl.col("side") == side)
        & (pl.col("subset") == subset)
        & (pl.col("system_id") == system)
    ).to_dicts()[0]


@pytest.mark.parametrize("n", [1, 2, 3, 5, 6, 7, 31, 32, 33, 64, 65, 1000, 2066, 4519])
def test_lazy_sample_makes_the_draws_of_random_sample(n: int) -> None:
    ours, theirs = random.Random(42), random.Random(42)
    for _ in range(3):  # consecutive shuffles from one generator, as the analysis draws them
        expected = theirs.sample(list(range(n)), n)
        lazy = LazySample(ours, n)
        prefix = [next(lazy) for _ in range(min(n, 40))]
        lazy.finish()
        assert prefix == expected[: len(prefix)]
        assert ours.getstate() == theirs.getstate()


def test_lazy_sample_runs_to_the_end() -> None:
    assert sorted(LazySample(random.Random(1), 50)) == list(range(50))


@pytest.mark.parametrize("count, seed", [(1500, 1), (2600, 2), (300, 3)])
def test_dataset_variant_is_the_definition(count: int, seed: int) -> None:
    lines = synthetic_lines(count, seed)
    row = _pick(_table(lines), "dataset")
    total = sum(len(line.split()) for line in lines)
    assert row["n_words"] == total and row["is_truncated"] == (total > 7012)
    assert row["max_words"] == 7012 and row["iterations"] == 100 and row["seed"] == 42
    assert row["distinct_1"] == reference_distinct(lines, 1)
    assert row["distinct_2"] == reference_distinct(lines, 2)


def test_plain_variant_is_whitespace_tokens_of_everything() -> None:
    lines = synthetic_lines(900, 4)
    row = _pick(_table(lines), "plain")
    tokens = [line.lower().split() for line in lines]
    for n, column in ((1, "distinct_1"), (2, "distinct_2")):
        grams = [tuple(t[i : i + n]) for t in tokens for i in range(len(t) - n + 1)]
        assert row[column] == len(set(grams)) / len(grams)
    assert (
        row["max_words"] is None
        and row["seed"] is None
        and row["iterations"] == 1
        and not row["is_truncated"]
    )


def test_hand_computed_distinct() -> None:
    # dataset tokens: [a, b, a, b] -> bigrams ab, ba, ab: 2 distinct of 3; [ab] (full stop removed) -> none
    frame = _table(["A b. a B", "a.b"], roles=["user", "system"])
    row = _pick(frame, "dataset")
    assert row["distinct_2"] == pytest.approx(2 / 3) and row["distinct_1"] == pytest.approx(3 / 5)
    assert _pick(frame, "dataset", side="system")["distinct_2"] == 0.0  # no bigram at all
    plain = _pick(frame, "plain")  # tokens a, b., a, b | a.b
    assert plain["distinct_1"] == pytest.approx(4 / 5) and plain["distinct_2"] == pytest.approx(1.0)


def test_grain_scopes_sides_and_variants() -> None:
    lines = synthetic_lines(120, 5)
    systems = [None if i < 16 else ("a" if i % 3 else "b") for i in range(120)]
    subsets = ["open" if i < 60 else "closed" for i in range(120)]
    frame = _table(lines, systems=systems, subsets=subsets)
    keys = frame.select("corpus", "subset", "system_id", "side", "variant")
    assert keys.n_unique() == frame.height
    scopes = set(frame.select("subset", "system_id").unique().iter_rows())
    assert scopes == {
        ("(all)", "(all)"),
        ("open", "(all)"),
        ("closed", "(all)"),
        ("(all)", "a"),
        ("(all)", "b"),
        ("open", "a"),
        ("open", "b"),
        ("closed", "a"),
        ("closed", "b"),
    }
    assert set(frame["side"]) == {"all", "user", "system"} and set(frame["variant"]) == {
        "dataset",
        "plain",
    }
    everything = _pick(frame, "plain")
    assert everything["n_utterances"] == 120 and everything["n_conversations"] == 15
    only_a = _pick(frame, "plain", system="a")
    assert only_a["n_utterances"] == sum(1 for s in systems if s == "a")
    assert frame.filter((pl.col("distinct_1") < 0) | (pl.col("distinct_2") > 1)).is_empty()


def test_empty_input_gives_the_typed_empty_table() -> None:
    table = td.text_diversity(td.Utterances([], [], [], [], [], []))
    assert table.num_rows == 0 and table.schema == td.SCHEMA


# --------------------------------------------------------------------------- published figures


def _published_rows() -> list[dict[str, str]]:
    with open(PUBLISHED, encoding="utf-8", newline="") as fh:
        reader = csv.DictReader(fh)
        assert reader.fieldnames == COLUMNS
        return list(reader)


def test_every_crsarena_figure_names_a_metric_with_a_definition() -> None:
    rows = _published_rows()
    registry = metrics()
    ids = [r["figure_id"] for r in rows]
    assert len(ids) == len(set(ids))
    derivable = [r for r in rows if r["metric"]]
    assert len(derivable) == len(
        rows
    )  # every figure is derivable now (Distinct-2 and Wang et al. included)
    for r in derivable:
        metric = registry[r["metric"]]
        text = metric.describe(parse_args(r["args"]))
        assert text and "{" not in text, r["figure_id"]
        if r["alt_metric"]:
            assert r["alt_metric"] in registry and r["explanation"]
        int(r["precision"])
        float(r["published"])
    prefixes = {i.split(".")[1] for i in ids}
    assert {
        "satisfied",
        "frustrated",
        "satisfied_share",
        "utterances_mean",
        "words_sd",
        "battles",
        "tie_share",
        "battle_matrix",
        "vote_result",
        "distinct2",
    } <= prefixes
    assert sum(i.startswith("crsarena.battle_matrix.") for i in ids) == 81
    assert sum(i.startswith("crsarena.satisfied_share.") for i in ids) == 27


# --------------------------------------------------------------------------- the report section


MART_DDL = {
    "crsarena_dialogue_stats": """environment varchar, system_id varchar, n_dialogues integer, n_satisfied integer,
        n_frustrated integer, satisfied_share double, n_utterances integer, utterances_mean double,
        utterances_median double, utterances_sd double, words_mean double, words_median double, words_sd double""",
    "crsarena_battle_counts": """environment varchar, system_a varchar, system_b varchar, n_votes integer,
        n_battles integer, n_wins_a integer, n_wins_b integer, n_ties integer""",
    "crsarena_vote_results": """conversation_id varchar, environment varchar, system_id varchar, user_id varchar,
        vote_id varchar, opponent_system_id varchar, vote_result varchar, n_votes integer""",
    "text_diversity": """corpus varchar, subset varchar, system_id varchar, side varchar, variant varchar,
        n_conversations bigint, n_utterances bigint, n_words bigint, max_words bigint, is_truncated boolean,
        iterations bigint, seed bigint, distinct_1 double, distinct_2 double""",
}


class FakeReport:
    """The parts of csrwh.reading.report that render() uses, recording what it writes and shows."""

    query = staticmethod(report.query)

    def __init__(self) -> None:
        self.tables: dict[str, list[str]] = {}
        self.figures = 0
        self.absent: list[str] = []

    def write_table(self, frame, name: str) -> None:
        self.tables[name] = list(frame.columns)

    def show_table(self, *args, **kwargs) -> None:
        pass

    def show_html(self, markup: str) -> None:
        pass

    def show_figure(self, fig, alt: str = "") -> None:
        import matplotlib.pyplot as plt

        assert alt
        for ax in fig.axes:
            if ax.get_label() == "<colorbar>":
                continue
            assert ax.get_xlabel() or ax.get_ylabel(), alt
        self.figures += 1
        plt.close(fig)

    def show_absent(self, corpus: str) -> None:
        self.absent.append(corpus)


def _marts(con, with_data: bool) -> None:
    for name, ddl in MART_DDL.items():
        con.execute(f"create table {name} ({ddl})")
    if not with_data:
        return
    systems = ["kbrd_redial", "unicrs_redial"]
    for env in ("open", "closed", "combined"):
        for system in [*systems, "(all)"]:
            con.execute(
                "insert into crsarena_dialogue_stats values (?, ?, 4, 1, 3, 0.25, 30, 7.5, 7, 2.1, 9.5, 8, 3.3)",
                [env, system],
            )
        for a in systems:
            for b in systems:
                con.execute(
                    "insert into crsarena_battle_counts values (?, ?, ?, 2, 2, 1, 0, 1)",
                    [env, a, b],
                )
    for env, result in (("open", "win"), ("open", "no_vote"), ("closed", "tie")):
        con.execute(
            "insert into crsarena_vote_results values ('c', ?, 'kbrd_redial', 'u', null, null, ?, 0)",
            [env, result],
        )
    for subset in ("open", "closed", "(all)"):
        for side in ("all", "user", "system"):
            for variant in ("dataset", "plain"):
                con.execute(
                    "insert into text_diversity values ('crsarena', ?, '(all)', ?, ?, 3, 9, 9000, 7012, true, 100, 42, 0.2, 0.5)",
                    [subset, side, variant],
                )


def test_render_writes_the_same_tables_whatever_the_data() -> None:
    report.setup_matplotlib()
    module = corpus_renderer("crsarena")
    written = {}
    for with_data in (False, True):
        con = duckdb.connect()
        _marts(con, with_data)
        fake = FakeReport()
        module.render(con, fake, present=with_data)
        written[with_data] = fake.tables
        if with_data:
            assert fake.figures >= 4 and fake.absent == []
        else:
            assert fake.figures == 0 and fake.absent == ["crsarena"]
        con.close()
    assert written[False] == written[True]
    assert set(written[True]) == {
        "crsarena_dialogue_stats",
        "crsarena_battle_counts",
        "crsarena_tie_shares",
        "crsarena_vote_results",
        "crsarena_text_diversity",
    }
