-- The figures the README states about the real corpora, each rendered from the warehouse by
-- scripts/cookbook.py: in README.md a figure is written <!--fig:NAME-->value<!--/fig-->, and
-- `scripts/cookbook.py --warehouse W --update-readme` rewrites every value (and the query
-- cookbook's answers); tests/integration/test_readme_figures_real.py fails when one differs
-- from a build of ../shared/corpora. Each query returns one value: an integer is written with
-- thousands separators, anything else as text. `{flagged:SUITE:EXPECTATION}` stands for the
-- rows that expectation (expectations/**/*.yml) flags, as the build's gate counts them: an
-- unexpected_rows_expectation's own query, or the rows a failed built-in names (its suite's
-- index_columns and the column, as text) in the gate's validation of the warehouse.

-- figure: dq_history_alternation
select count(*) from {flagged:raw.recllmsim__conversations:history_alternates_user_assistant};

-- figure: history_opens_with_assistant
with counted as (
    select split_part(record_key, '/', 1) as release, count(*) as n
    from {flagged:raw.recllmsim__conversations:history_alternates_user_assistant}
    where first_role <> 'user'
    group by release
)
select coalesce(string_agg(release || ' ' || n, ', ' order by release), 'none') from counted;

-- figure: history_repeats_a_role
with counted as (
    select split_part(record_key, '/', 1) as release, count(*) as n
    from {flagged:raw.recllmsim__conversations:history_alternates_user_assistant}
    where n_repeats > 0
    group by release
)
select coalesce(string_agg(release || ' ' || n, ', ' order by release), 'none') from counted;

-- figure: dq_one_role_only
select count(*) from {flagged:conversations:conversations_with_one_role_only};

-- figure: one_role_only_by_corpus
with counted as (
    select split_part(conversation_id, ':', 1) as corpus, count(*) as n
    from {flagged:conversations:conversations_with_one_role_only}
    group by corpus
)
select coalesce(string_agg(corpus || ' ' || n, ', ' order by corpus), 'none') from counted;

-- figure: dq_empty_text_turns
select count(*) from {flagged:turns:empty_text_turns};

-- figure: empty_text_turns_by_corpus
with counted as (
    select split_part(turn_id, ':', 1) as corpus, count(*) as n
    from {flagged:turns:empty_text_turns}
    group by corpus
)
select coalesce(string_agg(corpus || ' ' || n, ', ' order by corpus), 'none') from counted;

-- figure: dq_repetitive_conversations
select count(*) from {flagged:turns:repetitive_conversations};

-- figure: dq_dialogue_a_linked
select count(*) from {flagged:votes:dialogue_a_linked};

-- figure: dq_dialogue_b_linked
select count(*) from {flagged:votes:dialogue_b_linked};

-- figure: dq_personalised_topics
select count(*) from {flagged:cosrec__relevance_judgments:personalised_judgments_have_users};

-- figure: judgments_without_user
select coalesce(sum(n_judgments), 0)::bigint
from {flagged:cosrec__relevance_judgments:personalised_judgments_have_users};

-- figure: recommendation_judgments
select count(*) from main.relevance_judgments
where corpus = 'cosrec' and judgment_kind = 'recommendation';

-- figure: vote_records
select count(*) from main.votes;

-- figure: duplicate_open_votes
select count(*) from main.votes where is_duplicate and environment = 'open';
