{#- Per corpus, rater kind, aspect and level (conversation or turn rating): ratings, rated
    conversations, the aspect's scale and mean values. Read by the report (section 5) and the
    dashboard (Ratings page). -#}

with

ratings as (
    select * from {{ ref('ratings') }}
),

leveled as (
    select
        corpus,
        rater_kind,
        aspect,
        case when turn_index is null then 'conversation' else 'turn' end as level,
        conversation_id,
        scale_min,
        scale_max,
        value,
        value_normalized,
        higher_is_better
    from ratings
),

final as (
    select
        -- strings
        corpus,
        rater_kind,
        aspect,
        level,
        -- numerics
        count(*) as n_ratings,
        count(distinct conversation_id) as n_conversations,
        min(scale_min) as scale_min,
        max(scale_max) as scale_max,
        avg(value) as mean_value,
        avg(value_normalized) as mean_normalized,
        -- booleans
        bool_and(higher_is_better) as higher_is_better
    from leveled
    group by corpus, rater_kind, aspect, level
)

select
    corpus,
    rater_kind,
    aspect,
    level,
    n_ratings,
    n_conversations,
    scale_min,
    scale_max,
    mean_value,
    mean_normalized,
    higher_is_better
from final
