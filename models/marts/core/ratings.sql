{#- One row per rating (long format), placed on its scale from the rating_scales seed (custom corpora: their corpus.json). -#}

with

unioned as (
    {{ conformed_union(
        relations=conformed_relations('ratings'),
        columns=[
            'conversation_id', 'turn_index', 'item_id', 'rater_kind', 'rater_id', 'aspect', 'value',
            'raw_value', 'comment',
        ],
    ) }}
),

rating_scales as (
    select corpus as scale_key, aspect, scale_min, scale_max, higher_is_better
    from {{ ref('rating_scales') }}
    union all
    -- custom corpora declare their own scales (custom/<name>/corpus.json), per corpus name
    select scale_key, aspect, scale_min, scale_max, higher_is_better
    from {{ ref('int_custom__rating_scales') }}
),

with_corpus as (
    select
        *,
        {{ dbt.split_part("conversation_id", "':'", 1) }} as corpus,
        -- the scale's key: the corpus, or 'custom:<name>' (the custom id up to its first '/')
        case
            when {{ dbt.split_part("conversation_id", "':'", 1) }} = 'custom'
                then {{ dbt.split_part("conversation_id", "'/'", 1) }}
            else {{ dbt.split_part("conversation_id", "':'", 1) }}
        end as scale_key
    from unioned
),

final as (
    select
        -- ids
        with_corpus.conversation_id,
        with_corpus.item_id,
        with_corpus.rater_id,
        -- strings
        with_corpus.corpus,
        with_corpus.rater_kind,
        with_corpus.aspect,
        with_corpus.raw_value,
        with_corpus.comment,
        -- numerics
        with_corpus.turn_index,
        cast(with_corpus.value as double) as value,
        cast(rating_scales.scale_min as double) as scale_min,
        cast(rating_scales.scale_max as double) as scale_max,
        (cast(with_corpus.value as double) - rating_scales.scale_min)
            / (rating_scales.scale_max - rating_scales.scale_min) as value_normalized,
        -- booleans
        rating_scales.higher_is_better
    from with_corpus
    left join rating_scales
        on with_corpus.scale_key = rating_scales.scale_key
        and with_corpus.aspect = rating_scales.aspect
)

select * from final
