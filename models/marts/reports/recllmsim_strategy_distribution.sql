{#-
    How often each final user-behaviour label is given (user_behavior/count_sim.py,
    count_human.py): conversations per user side, release, task, labelling scheme, dimension
    and label. Only `final` labels (`behaviour_labels.is_final`), as the scripts count.
    `release` = 'all' aggregates every release of the side and `task` = 'all' every task; tasks
    are the task folders (the LLM-agent 'new travel planning' stays apart from
    'travel planning', as count_sim.py reads one folder).
-#}

with

{{ recllmsim_final_labels() }},

labelled as (
    select
        measures.user_side,
        measures.release,
        measures.task,
        labels.scheme,
        labels.dimension,
        labels.label_value,
        labels.label_number,
        labels.conversation_id
    from labels
    inner join measures
        on labels.conversation_id = measures.conversation_id
),

grouped as (
    select
        user_side,
        case when grouping(release) = 1 then 'all' else release end as release,
        case when grouping(task) = 1 then 'all' else task end as task,
        scheme,
        dimension,
        label_value,
        min(label_number) as label_number,
        count(distinct conversation_id) as n_conversations
    from labelled
    group by grouping sets (
        (user_side, release, task, scheme, dimension, label_value),
        (user_side, release, scheme, dimension, label_value),
        (user_side, task, scheme, dimension, label_value),
        (user_side, scheme, dimension, label_value)
    )
),

final as (
    select
        -- strings
        user_side,
        release,
        task,
        scheme,
        dimension,
        label_value,
        -- numerics
        label_number,
        cast(n_conversations as integer) as n_conversations,
        cast(n_conversations as double)
            / sum(n_conversations) over (partition by user_side, release, task, scheme, dimension)
            as share
    from grouped
)

select * from final
