{#- One row per rating (long format), placed on its scale from the rating_scales seed. -#}

with

unioned as (
    {{ conformed_union(
        relations=[
            ref('int_cosrec__ratings_conformed'),
            ref('int_crsarena__ratings_conformed'),
            ref('int_convsearch__ratings_conformed'),
            ref('int_recllmsim__ratings_conformed'),
            ref('int_recoreact__ratings_conformed'),
        ],
        columns=[
            'conversation_id', 'turn_index', 'item_id', 'rater_kind', 'rater_id', 'aspect', 'value',
            'raw_value', 'comment',
        ],
    ) }}
),

rating_scales as (
    select * from {{ ref('rating_scales') }}
),

with_corpus as (
    select
        *,
        {{ dbt.split_part("conversation_id", "':'", 1) }} as corpus
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
        on with_corpus.corpus = rating_scales.corpus
        and with_corpus.aspect = rating_scales.aspect
)

select * from final
