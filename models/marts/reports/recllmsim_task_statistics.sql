{#-
    RecLLMSim conversations, turns, tokens, tasks and profiles per user side, release and
    scenario: the tables statistics/basic_count.py and statistics/basic_statistics.py print.
    `release` = 'all' aggregates every release of the side (the scripts' agent and human
    sets); `scenario` = 'all' every scenario.
-#}

with

measures as (
    select * from {{ ref('recllmsim_conversation_measures') }}
),

grouped as (
    select
        user_side,
        case when grouping(release) = 1 then 'all' else release end as release,
        case when grouping(scenario) = 1 then 'all' else scenario end as scenario,
        count(*) as n_conversations,
        count(distinct task_context) as n_tasks,
        count(distinct profile_key) as n_profiles,
        avg(cast(n_turns_script as double)) as mean_turns,
        stddev_samp(n_turns_script) as sd_turns,
        avg(cast(n_user_turns as double)) as mean_user_turns,
        avg(cast(n_user_tokens as double)) as mean_user_tokens,
        stddev_samp(n_user_tokens) as sd_user_tokens,
        avg(cast(n_assistant_tokens as double)) as mean_assistant_tokens,
        -- means over utterances: all tokens of the side's utterances / its utterances
        sum(n_user_tokens) / nullif(sum(case when n_user_tokens is not null then n_user_turns end), 0)
            as mean_user_tokens_per_turn,
        sum(n_assistant_tokens)
            / nullif(sum(case when n_assistant_tokens is not null then n_assistant_turns end), 0)
            as mean_assistant_tokens_per_turn
    from measures
    group by grouping sets (
        (user_side, release, scenario),
        (user_side, release),
        (user_side, scenario),
        (user_side)
    )
),

final as (
    select
        -- strings
        user_side,
        release,
        scenario,
        -- numerics
        cast(n_conversations as integer) as n_conversations,
        cast(n_tasks as integer) as n_tasks,
        cast(n_profiles as integer) as n_profiles,
        mean_turns,
        sd_turns,
        mean_user_turns,
        mean_user_tokens,
        sd_user_tokens,
        mean_assistant_tokens,
        cast(mean_user_tokens_per_turn as double) as mean_user_tokens_per_turn,
        cast(mean_assistant_tokens_per_turn as double) as mean_assistant_tokens_per_turn
    from grouped
)

select * from final
