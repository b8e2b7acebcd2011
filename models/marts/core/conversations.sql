{#- One row per conversation of every corpus, with turn counts from `turns`. -#}

with

unioned as (
    {{ conformed_union(
        relations=[
            ref('int_cosrec__conversations_conformed'),
            ref('int_crsarena__conversations_conformed'),
            ref('int_convsearch__conversations_conformed'),
            ref('int_recllmsim__conversations_conformed'),
            ref('int_recoreact__conversations_conformed'),
        ],
        columns=[
            'conversation_id', 'corpus', 'subset', 'source_conversation_id', 'domain_or_task',
            'language', 'user_id', 'system_id', 'started_at', 'ended_at', 'user_sentiment',
            'user_satisfaction',
        ],
    ) }}
),

turns as (
    select * from {{ ref('turns') }}
),

turn_counts as (
    select
        conversation_id,
        count(*) as n_turns,
        sum(case when role = 'user' then 1 else 0 end) as n_user_turns,
        sum(case when role = 'system' then 1 else 0 end) as n_system_turns,
        max(merged_turn_index) + 1 as n_merged_turns
    from turns
    group by conversation_id
),

final as (
    select
        -- ids
        unioned.conversation_id,
        unioned.source_conversation_id,
        unioned.user_id,
        unioned.system_id,
        -- strings
        unioned.corpus,
        unioned.subset,
        unioned.domain_or_task,
        unioned.language,
        unioned.user_sentiment,
        -- numerics
        cast(coalesce(turn_counts.n_turns, 0) as integer) as n_turns,
        cast(coalesce(turn_counts.n_user_turns, 0) as integer) as n_user_turns,
        cast(coalesce(turn_counts.n_system_turns, 0) as integer) as n_system_turns,
        cast(coalesce(turn_counts.n_merged_turns, 0) as integer) as n_merged_turns,
        unioned.user_satisfaction,
        -- timestamps
        unioned.started_at,
        unioned.ended_at
    from unioned
    left join turn_counts
        on unioned.conversation_id = turn_counts.conversation_id
)

select * from final
