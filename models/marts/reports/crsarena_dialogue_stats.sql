{#-
    CRSArena-Dial dialogues per environment (open, closed, and both as `combined`) and CRS
    (each system, and `(all)`): dialogue counts, user satisfaction, and the lengths the
    dataset's analysis tabulates (utterances per dialogue, words per utterance).
-#}

with

conversations as (
    select * from {{ ref('conversations') }}
    where corpus = 'crsarena'
),

turns as (
    select * from {{ ref('turns') }}
    where corpus = 'crsarena'
),

by_environment as (
    select conversation_id, subset as environment, system_id, user_sentiment, n_turns
    from conversations
    union all
    select conversation_id, 'combined' as environment, system_id, user_sentiment, n_turns
    from conversations
),

scoped as (
    select conversation_id, environment, system_id, user_sentiment, n_turns
    from by_environment
    where system_id is not null
    union all
    select conversation_id, environment, '(all)' as system_id, user_sentiment, n_turns
    from by_environment
),

dialogue_figures as (
    select
        environment,
        system_id,
        count(*) as n_dialogues,
        sum(case when user_sentiment = 'satisfied' then 1 else 0 end) as n_satisfied,
        sum(case when user_sentiment = 'frustrated' then 1 else 0 end) as n_frustrated,
        sum(n_turns) as n_utterances,
        avg(cast(n_turns as double)) as utterances_mean,
        percentile_cont(0.5) within group (order by n_turns) as utterances_median,
        stddev_samp(cast(n_turns as double)) as utterances_sd
    from scoped
    group by environment, system_id
),

word_figures as (
    select
        scoped.environment,
        scoped.system_id,
        avg(cast(turns.n_words as double)) as words_mean,
        percentile_cont(0.5) within group (order by turns.n_words) as words_median,
        stddev_samp(cast(turns.n_words as double)) as words_sd
    from scoped
    inner join turns
        on scoped.conversation_id = turns.conversation_id
    group by scoped.environment, scoped.system_id
),

final as (
    select
        -- strings
        dialogue_figures.environment,
        dialogue_figures.system_id,
        -- numerics
        cast(dialogue_figures.n_dialogues as integer) as n_dialogues,
        cast(dialogue_figures.n_satisfied as integer) as n_satisfied,
        cast(dialogue_figures.n_frustrated as integer) as n_frustrated,
        cast(dialogue_figures.n_satisfied as double)
            / nullif(dialogue_figures.n_satisfied + dialogue_figures.n_frustrated, 0) as satisfied_share,
        cast(dialogue_figures.n_utterances as integer) as n_utterances,
        dialogue_figures.utterances_mean,
        cast(dialogue_figures.utterances_median as double) as utterances_median,
        dialogue_figures.utterances_sd,
        word_figures.words_mean,
        cast(word_figures.words_median as double) as words_median,
        word_figures.words_sd
    from dialogue_figures
    left join word_figures
        on dialogue_figures.environment = word_figures.environment
        and dialogue_figures.system_id = word_figures.system_id
)

select * from final
