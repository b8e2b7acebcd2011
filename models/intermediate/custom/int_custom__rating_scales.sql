{#-
    The rating scales custom corpora declare in custom/<name>/corpus.json, keyed like the
    ratings mart looks them up: scale_key 'custom:<name>' (the conversation id up to its first
    '/') and aspect. A scale without a numeric min below its max is no scale (the raw suite of
    corpus.json fails on it).
-#}

with

scales as (

    select * from {{ ref('stg_custom__rating_scales') }}

),

final as (

    select
        -- ids
        {{ global_id('custom', 'corpus_name') }} as scale_key,
        -- strings
        corpus_name,
        aspect,
        -- numerics
        scale_min,
        scale_max,
        -- booleans
        coalesce(higher_is_better, true) as higher_is_better
    from scales
    where scale_min < scale_max

)

select * from final
