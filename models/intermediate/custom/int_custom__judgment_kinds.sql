{#-
    The judgment kinds custom corpora declare in custom/<name>/corpus.json, keyed like the
    relevance_judgments mart looks them up: collection 'custom:<name>' and judgment kind. A
    kind without whole-number min below or at its max is no scale (the raw suite of corpus.json
    fails on it).
-#}

with

kinds as (

    select * from {{ ref('stg_custom__judgment_kinds') }}

),

final as (

    select
        -- ids
        {{ global_id('custom', 'corpus_name') }} as collection,
        -- strings
        corpus_name,
        judgment_kind,
        description,
        -- numerics
        grade_min,
        grade_max,
        -- booleans
        coalesce(is_implicit, false) as is_implicit
    from kinds
    where grade_min <= grade_max

)

select * from final
