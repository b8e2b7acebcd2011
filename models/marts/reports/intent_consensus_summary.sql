{#- Per corpus and label scheme: labelled turns and how often their annotators agree on the
    intent family. Read by the report (section 4) and the dashboard (Intents page). -#}

with

intent_consensus as (
    select * from {{ ref('intent_consensus') }}
),

final as (
    select
        -- strings
        corpus,
        label_scheme,
        -- numerics
        count(*) as n_turns,
        count(*) filter (where n_annotators >= 2) as n_turns_multi,
        avg(n_annotators) as mean_annotators,
        avg(agreement_share) filter (where n_annotators >= 2) as mean_agreement_share,
        -- doubles on every engine (Spark's 1.0 is a decimal, and its avg one too)
        avg(case when is_unanimous then cast(1 as double) else cast(0 as double) end)
            filter (where n_annotators >= 2) as unanimous_share
    from intent_consensus
    group by corpus, label_scheme
)

select
    corpus,
    label_scheme,
    n_turns,
    n_turns_multi,
    mean_annotators,
    mean_agreement_share,
    unanimous_share
from final
