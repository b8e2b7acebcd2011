{#-
    Mean 0..2 assistant-quality score of the conversations carrying each final user-behaviour
    label (user_behavior/score_sim.py, score_human.py): per user side, release, labelling
    scheme, dimension, label and aspect. `release` = 'all' aggregates every release of the side.
-#}

with

{{ recllmsim_final_labels() }},

scores as (
    select conversation_id, user_side, release, 'Detail Level' as aspect, detail_level as value from measures
    union all
    select conversation_id, user_side, release, 'Practical Usefulness' as aspect, practical_usefulness as value from measures
    union all
    select conversation_id, user_side, release, 'Diversity' as aspect, diversity as value from measures
),

labelled as (
    select
        scores.user_side,
        scores.release,
        labels.scheme,
        labels.dimension,
        labels.label_value,
        labels.label_number,
        scores.aspect,
        scores.value
    from labels
    inner join scores
        on labels.conversation_id = scores.conversation_id
    where scores.value is not null
),

final as (
    select
        -- strings
        user_side,
        case when grouping(release) = 1 then 'all' else release end as release,
        scheme,
        dimension,
        label_value,
        aspect,
        -- numerics
        min(label_number) as label_number,
        cast(count(*) as integer) as n_conversations,
        avg(value) as mean_value,
        stddev_samp(value) as sd_value
    from labelled
    group by grouping sets (
        (user_side, release, scheme, dimension, label_value, aspect),
        (user_side, scheme, dimension, label_value, aspect)
    )
)

select * from final
