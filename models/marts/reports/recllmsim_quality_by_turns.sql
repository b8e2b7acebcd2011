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
    select user_side, n_turns_script, 'Role-Playing Completeness' as aspect, role_playing_completeness as value from measures
    union all
    select user_side, n_turns_script, 'Detail Level' as aspect, detail_level as value from measures
    union all
    select user_side, n_turns_script, 'Practical Usefulness' as aspect, practical_usefulness as value from measures
    union all
    select user_side, n_turns_script, 'Diversity' as aspect, diversity as value from measures
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
