{#-
    Mean 0..2 quality score per user side, number of turns as the RecLLMSim scripts count them
    (len(history) // 2) and aspect, over every release of the side
    (statistics/simulaton_quality.py: the LLM judge's Preference Alignment and Role-Playing
    Completeness of the simulated users by turns; the assistant-quality aspects alongside).
-#}

with

measures as (
    select * from {{ ref('recllmsim_conversation_measures') }}
),

scores as (
    select user_side, n_turns_script, 'Preference Alignment' as aspect, preference_alignment as value from measures
    union all
    select user_side, n_turns_script, 'Role-Playing Completeness', role_playing_completeness from measures
    union all
    select user_side, n_turns_script, 'Detail Level', detail_level from measures
    union all
    select user_side, n_turns_script, 'Practical Usefulness', practical_usefulness from measures
    union all
    select user_side, n_turns_script, 'Diversity', diversity from measures
),

final as (
    select
        -- strings
        user_side,
        aspect,
        -- numerics
        n_turns_script as n_turns,
        cast(count(*) as integer) as n_conversations,
        avg(value) as mean_value,
        stddev_samp(value) as sd_value
    from scores
    where value is not null
    group by user_side, aspect, n_turns_script
)

select * from final
