{#- Per corpus and subset: the headline figures a dataset paper reports. -#}

with

conversations as (
    select * from {{ ref('conversations') }}
),

turns as (
    select * from {{ ref('turns') }}
),

intents as (
    select * from {{ ref('intents') }}
),

ratings as (
    select * from {{ ref('ratings') }}
),

intent_conversations as (
    select distinct conversation_id from intents
),

rated_conversations as (
    select distinct conversation_id from ratings
),

turn_words as (
    select
        conversations.corpus,
        conversations.subset,
        avg(case when turns.role = 'user' then turns.n_words end) as mean_words_per_user_turn,
        avg(case when turns.role = 'system' then turns.n_words end) as mean_words_per_system_turn
    from turns
    inner join conversations
        on turns.conversation_id = conversations.conversation_id
    group by conversations.corpus, conversations.subset
),

conversation_figures as (
    select
        conversations.corpus,
        conversations.subset,
        count(*) as n_conversations,
        sum(conversations.n_turns) as n_turns,
        sum(conversations.n_user_turns) as n_user_turns,
        sum(conversations.n_system_turns) as n_system_turns,
        avg(cast(conversations.n_turns as double)) as mean_turns_per_conversation,
        avg(cast(conversations.n_user_turns as double)) as mean_user_turns_per_conversation,
        avg(cast(conversations.n_merged_turns as double)) as mean_merged_turns_per_conversation,
        sum(case when intent_conversations.conversation_id is not null then 1 else 0 end)
            as n_intent_annotated,
        sum(case when rated_conversations.conversation_id is not null then 1 else 0 end)
            as n_rated,
        sum(
            case
                when intent_conversations.conversation_id is not null
                    or rated_conversations.conversation_id is not null then 1
                else 0
            end
        ) as n_annotated
    from conversations
    left join intent_conversations
        on conversations.conversation_id = intent_conversations.conversation_id
    left join rated_conversations
        on conversations.conversation_id = rated_conversations.conversation_id
    group by conversations.corpus, conversations.subset
),

final as (
    select
        -- strings
        conversation_figures.corpus,
        conversation_figures.subset,
        -- numerics
        cast(conversation_figures.n_conversations as integer) as n_conversations,
        cast(conversation_figures.n_turns as integer) as n_turns,
        cast(conversation_figures.n_user_turns as integer) as n_user_turns,
        cast(conversation_figures.n_system_turns as integer) as n_system_turns,
        conversation_figures.mean_turns_per_conversation,
        conversation_figures.mean_user_turns_per_conversation,
        conversation_figures.mean_merged_turns_per_conversation,
        turn_words.mean_words_per_user_turn,
        turn_words.mean_words_per_system_turn,
        cast(conversation_figures.n_intent_annotated as double)
            / conversation_figures.n_conversations as intent_annotated_share,
        cast(conversation_figures.n_rated as double)
            / conversation_figures.n_conversations as rated_share,
        cast(conversation_figures.n_annotated as double)
            / conversation_figures.n_conversations as annotated_share
    from conversation_figures
    left join turn_words
        on conversation_figures.corpus = turn_words.corpus
        and conversation_figures.subset = turn_words.subset
)

select * from final
