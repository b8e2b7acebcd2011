{#-
    One row per utterance of every corpus (int_turns_unioned, merged-turn index included),
    with conformed length measures: n_chars here, n_words from int_turn_text_counts (macro
    count_words, counted again only for the corpora whose turns changed), n_words_segmented
    and the cl100k_base token counts from the Python-measured model int_turn_text_measures
    (jieba segmentation, tiktoken).

    The merged-turn index is read apart from the texts (merged_turns) and joined by key: it is
    a window of int_turns_unioned, and a window holds all the columns it is given, so reading
    it with the texts held every text at once (the build's 1 GiB ran out on such a window at
    a million conversations). The two reads of int_turns_unioned are two refs, not one CTE
    read twice, which DuckDB would keep whole.
-#}

with

unioned as (
    select
        conversation_id,
        turn_index,
        role,
        text,
        text_translation,
        created_at,
        is_image,
        source_turn_id
    from {{ ref('int_turns_unioned') }}
),

merged_turns as (
    select
        conversation_id,
        turn_index,
        merged_turn_index
    from {{ ref('int_turns_unioned') }}
),

text_measures as (
    select * from {{ ref('int_turn_text_measures') }}
),

text_counts as (
    select * from {{ ref('int_turn_text_counts') }}
),

with_measures as (
    select
        unioned.*,
        text_measures.n_words_segmented,
        text_measures.n_tokens,
        text_measures.n_tokens_translation,
        text_counts.n_words,
        merged_turns.merged_turn_index
    from unioned
    inner join merged_turns
        on unioned.conversation_id = merged_turns.conversation_id
        and unioned.turn_index = merged_turns.turn_index
    left join text_measures
        on unioned.conversation_id = text_measures.conversation_id
        and unioned.turn_index = text_measures.turn_index
    left join text_counts
        on unioned.conversation_id = text_counts.conversation_id
        and unioned.turn_index = text_counts.turn_index
),

final as (
    select
        -- ids
        {{ dbt.concat(["conversation_id", "':'", dbt.cast("turn_index", api.Column.translate_type("string"))]) }} as turn_id,
        conversation_id,
        {{ dbt.split_part("conversation_id", "':'", 1) }} as corpus,
        source_turn_id,
        -- strings
        role,
        text,
        text_translation,
        -- numerics
        turn_index,
        merged_turn_index,
        cast({{ dbt.length("coalesce(text, '')") }} as bigint) as n_chars,  -- Spark's length is int
        n_words,
        n_words_segmented,
        n_tokens,
        n_tokens_translation,
        -- booleans
        is_image,
        -- timestamps
        created_at
    from with_measures
)

select * from final
