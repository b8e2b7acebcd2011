{#- One row per rating (long format), placed on its scale: the corpus' own scale model when it has one (custom corpora: their corpus.json), else the rating_scales seed. -#}

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

corpus_scales as (
    select corpus, aspect, scale_min, scale_max, higher_is_better
    from {{ ref('rating_scales') }}
),

-- scales a corpus declares for a part of itself in its own model int_<id>__rating_scales
-- (registry-driven; e.g. each custom corpus' corpus.json), keyed by the conversation id up to
-- its first '/'; they take precedence over the corpus' seed scale
own_scales as (
    {{ corpus_lookup_models_union('rating_scales', [
        ['scale_key', 'string'], ['aspect', 'string'], ['scale_min', 'double'],
        ['scale_max', 'double'], ['higher_is_better', 'boolean'],
    ]) }}
),

with_corpus as (
    select
        *,
        {{ dbt.split_part("conversation_id", "':'", 1) }} as corpus,
        {{ dbt.split_part("conversation_id", "'/'", 1) }} as scale_key
    from unioned
),

scaled as (
    select
        with_corpus.*,
        cast(coalesce(own_scales.scale_min, corpus_scales.scale_min) as double) as scale_min,
        cast(coalesce(own_scales.scale_max, corpus_scales.scale_max) as double) as scale_max,
        case
            when own_scales.aspect is not null then own_scales.higher_is_better
            else corpus_scales.higher_is_better
        end as higher_is_better
    from with_corpus
    left join own_scales
        on with_corpus.scale_key = own_scales.scale_key
        and with_corpus.aspect = own_scales.aspect
    left join corpus_scales
        on with_corpus.corpus = corpus_scales.corpus
        and with_corpus.aspect = corpus_scales.aspect
),

final as (
    select
        -- ids
        conversation_id,
        item_id,
        rater_id,
        -- strings
        corpus,
        rater_kind,
        aspect,
        raw_value,
        comment,
        -- numerics
        turn_index,
        cast(value as double) as value,
        scale_min,
        scale_max,
        (cast(value as double) - scale_min) / (scale_max - scale_min) as value_normalized,
        -- booleans
        higher_is_better
    from scaled
)

select * from final
