{#- Length measures of every utterance that need Python: segmented words and cl100k tokens.
    One row per utterance of int_turns_unioned, keyed like it by (conversation_id, turn_index);
    the turns mart joins it. The measures are Python functions the build registers on its
    engine (csrwh/dbt_support/udfs.py: a dbt-duckdb plugin on DuckDB, UDFs on the SparkSession on
    Spark), called a batch of rows at a time; their definitions: csrwh/measures/text.py.

    Incremental by content: each text and translation is keyed by the md5 of the
    measures' code version (csrwh_text_measures_version: this file, the Python measures, the
    segmenter's, tokenizer's and Arrow's versions, zh_min_han_share) and the text. A build
    reads the measures of the keys its previous table holds and measures only the distinct
    texts it has not measured before; it returns every current utterance's row (the replace
    strategy), so nothing of a removed utterance is kept. --full-refresh measures everything.
    The query holds keys, never texts: each distinct text is read back from one place of its
    key and streams to the functions (DuckDB's memory does not grow with the texts).
    On Spark the model is a table (Parquet tables take no delete, and a table cannot be
    overwritten from a query that reads it): every build measures every distinct text. -#}
{{ config(
    materialized=("incremental" if target.type == "duckdb" else "table"),
    incremental_strategy="replace",
    on_schema_change="sync_all_columns",
) }}

{%- set min_han_share = var("zh_min_han_share") | float -%}
{%- set keep = is_incremental()
    and "text_key" in (adapter.get_columns_in_relation(this) | map(attribute="name") | list) -%}

with

version as (

    select csrwh_text_measures_version('zh_min_han_share={{ min_han_share }}') as code_version

),

-- the keys of every utterance's text and translation, without the texts: this CTE is read
-- several times, and DuckDB keeps such a CTE's rows (with texts, every text at once)
keyed as (

    -- NULL text is measured as '' (as the mart's n_chars/n_words); a NULL translation has none
    select
        turns.conversation_id,
        cast(turns.turn_index as int) as turn_index,
        md5(version.code_version || coalesce(turns.text, '')) as text_key,
        case
            when turns.text_translation is not null
                then md5(version.code_version || turns.text_translation)
        end as translation_key
    from {{ ref('int_turns_unioned') }} as turns
    cross join version

),

{% if keep %}
-- the measures kept from the previous build (keys of another version never match): of texts
-- (words and tokens), and of texts and translations (tokens)
kept_words as (

    select distinct
        text_key,
        is_segmented,
        n_words_segmented,
        n_tokens
    from {{ this }}

),

kept_tokens as (

    select
        text_key,
        n_tokens
    from {{ this }}
    union
    select
        translation_key as text_key,
        n_tokens_translation as n_tokens
    from {{ this }}
    where translation_key is not null

),
{% endif %}

-- the utterances whose text or translation is not measured yet, by key and place (not text)
to_measure as (

    select
        keyed.text_key,
        keyed.conversation_id,
        keyed.turn_index,
        false as is_translation
    from keyed
    {%- if keep %}
        left join kept_words on keyed.text_key = kept_words.text_key
    where kept_words.text_key is null
    {%- endif %}
    union all
    select
        keyed.translation_key as text_key,
        keyed.conversation_id,
        keyed.turn_index,
        true as is_translation
    from keyed
    {%- if keep %}
        left join kept_tokens on keyed.translation_key = kept_tokens.text_key
    {%- endif %}
    where
        keyed.translation_key is not null
        {%- if keep %}
            and kept_tokens.text_key is null
        {%- endif %}

),

-- one place per text to measure, found by key alone (grouping the texts themselves would
-- hold every distinct text at once); the text is read back from that place
first_places as (

    select
        text_key,
        min({{ struct_of(['conversation_id', 'turn_index', 'is_translation']) }}) as place
    from to_measure
    group by text_key

),

distinct_texts as (

    select
        first_places.text_key,
        case
            when first_places.place.is_translation then turns.text_translation
            else coalesce(turns.text, '')
        end as text
    from first_places
    inner join {{ ref('int_turns_unioned') }} as turns
        on
            first_places.place.conversation_id = turns.conversation_id
            and first_places.place.turn_index = cast(turns.turn_index as int)

),

classified as (

    select
        text_key,
        text,
        csrwh_is_chinese(text, {{ min_han_share }}) as is_segmented
    from distinct_texts

),

-- read twice (words, tokens by text key; tokens by translation key): measured once
measured as {{ cte_materialized() }} (

    select
        text_key,
        is_segmented,
        csrwh_words_segmented(text, is_segmented) as n_words_segmented,
        csrwh_tokens(text) as n_tokens
    from classified

),

by_text as (

    select * from measured
    {%- if keep %}
        union all
        select * from kept_words
    {%- endif %}

),

by_translation as (

    select
        text_key,
        n_tokens
    from measured
    {%- if keep %}
        union
        select * from kept_tokens
    {%- endif %}

)

select
    keyed.conversation_id,
    keyed.turn_index,
    by_text.is_segmented,
    by_text.n_words_segmented,
    by_text.n_tokens,
    by_translation.n_tokens as n_tokens_translation,
    keyed.text_key,
    keyed.translation_key
from keyed
inner join by_text on keyed.text_key = by_text.text_key
left join by_translation on keyed.translation_key = by_translation.text_key
