{#- The counts of every utterance the turns and conversations marts read: Han characters and
    letters (macros count_han_chars, count_letters: the conversation's detected language) and
    words (count_words: turns.n_words). One row per row of int_turns_unioned, keyed like it by
    (conversation_id, turn_index).

    Incremental by corpus: the counts are the costly part of both marts (regular
    expressions over every text), and a changed file changes one corpus. Each row carries its
    corpus's inputs digest: macro corpus_inputs_digest over the corpus's conversation_id,
    turn_index and text, with the md5 of the counting SQL as this file renders it (a change of
    the macros counts again). A build counts only the corpora whose digest its previous table
    does not hold and carries the other corpora's rows over; it returns every current row (the
    replace strategy), so a corpus that is gone is dropped. --full-refresh counts everything.
    On Spark the model is a table counted whole on every build (as int_turn_text_measures),
    without digests. -#}
{{ config(
    materialized=("incremental" if target.type == "duckdb" else "table"),
    incremental_strategy="replace",
    on_schema_change="sync_all_columns",
) }}

{%- set counting -%}
        {{ count_han_chars('text') }} as n_han_chars,
        {{ count_letters('text') }} as n_letters,
        {{ count_words('text') }} as n_words
{%- endset -%}
{%- set keep = is_incremental()
    and "inputs_digest" in (adapter.get_columns_in_relation(this) | map(attribute="name") | list) -%}

with

-- the turns are read twice, by two refs: one CTE read twice would be kept whole, with every
-- text, by DuckDB (it materializes such a CTE); each read here streams
turns as (

    select
        {{ dbt.split_part("conversation_id", "':'", 1) }} as corpus,
        conversation_id,
        turn_index,
        text
    from {{ ref('int_turns_unioned') }}

),

digests as (

    select
        {{ dbt.split_part("conversation_id", "':'", 1) }} as corpus,
        {%- if target.type == "duckdb" %}
            {{ corpus_inputs_digest(['conversation_id', 'turn_index', 'text']) }}
            || ':{{ local_md5(counting) }}' as inputs_digest
        {%- else %}
            {{ corpus_inputs_digest(['conversation_id', 'turn_index', 'text']) }} as inputs_digest
        {%- endif %}
    from {{ ref('int_turns_unioned') }}
    group by 1

),

{% if keep %}
-- the corpora whose rows the previous table holds, counted from the same inputs
kept_corpora as (

    select distinct previous.corpus
    from {{ this }} as previous
    inner join digests
        on
            previous.corpus = digests.corpus
            and previous.inputs_digest = digests.inputs_digest

),

kept as (

    select
        previous.corpus,
        previous.conversation_id,
        previous.turn_index,
        previous.n_han_chars,
        previous.n_letters,
        previous.n_words,
        previous.inputs_digest
    from {{ this }} as previous
    inner join kept_corpora on previous.corpus = kept_corpora.corpus

),
{% endif %}

counted as (

    select
        turns.corpus,
        turns.conversation_id,
        turns.turn_index,
        {{ counting }},
        digests.inputs_digest
    from turns
    inner join digests on turns.corpus = digests.corpus
    {%- if keep %}
        left join kept_corpora on turns.corpus = kept_corpora.corpus
    where kept_corpora.corpus is null
    {%- endif %}

)

{% if keep %}
    select * from kept
    union all
{% endif %}
select * from counted
