{#-
    Mean 0..2 assistant-quality score per user side, release, chat model and aspect
    (statistics/assistant_quality.py: the humans' questionnaire answers by chat model; the
    LLM-agent conversations' judge ratings alongside). `release` = 'all' aggregates every
    release of the side.
-#}

with

measures as (
    select * from {{ ref('recllmsim_conversation_measures') }}
),

scores as (
    select user_side, release, chat_model, 'Detail Level' as aspect, detail_level as value from measures
    union all
    select user_side, release, chat_model, 'Practical Usefulness' as aspect, practical_usefulness as value from measures
    union all
    select user_side, release, chat_model, 'Diversity' as aspect, diversity as value from measures
),

final as (
    select
        -- strings
        user_side,
        case when grouping(release) = 1 then 'all' else release end as release,
        chat_model,
        aspect,
        -- numerics
        cast(count(*) as integer) as n_conversations,
        avg(value) as mean_value,
        stddev_samp(value) as sd_value
    from scores
    where value is not null
    group by grouping sets ((user_side, release, chat_model, aspect), (user_side, chat_model, aspect))
)

select * from final
