{#-
    CoSRec relevance judgments (qrels.qrels), one row per topic and document, linked to the
    curated intent, the user turn it was stated in and, for personalised recommendation
    topics "<intent id>#<k>", the k-th user (0-based) of the conversation's profiles.jsonl
    in lexical order of user id.
-#}

with

qrels as (

    select * from {{ ref('stg_cosrec__qrels') }}

),

intents as (

    select * from {{ ref('stg_cosrec__intents') }}

),

profiles as (

    select * from {{ ref('stg_cosrec__profiles') }}

),

turns_split as (

    select * from {{ ref('int_cosrec__turns_split') }}

),

intent_turns as (

    select
        intents.intent_id,
        intents.conversation_id,
        turns_split.turn_index
    from intents
    left join turns_split
        on intents.conversation_id = turns_split.conversation_id
        and intents.user_utterance_index = turns_split.user_turn_index

),

profile_users_ranked as (

    select
        conversation_id,
        source_user_id,
        row_number() over (partition by conversation_id order by source_user_id) - 1 as user_index
    from profiles

),

final as (

    -- the relevance_judgments mart's columns, in its order
    select
        cast({{ global_id('cosrec', "qrels.topic_id || ' ' || qrels.doc_id") }} as string) as judgment_id,
        cast('cosrec' as string) as collection,
        cast('cosrec' as string) as corpus,
        cast(qrels.topic_id as string) as topic_id,
        cast(qrels.doc_id as string) as doc_id,
        cast({{ global_id('cosrec', 'qrels.doc_id') }} as string) as item_id,
        cast({{ global_id('cosrec', 'intent_turns.conversation_id') }} as string) as conversation_id,
        cast(intent_turns.turn_index as integer) as turn_index,
        cast({{ global_id('cosrec', 'qrels.intent_id') }} as string) as intent_id,
        cast(qrels.user_index as integer) as user_index,
        cast({{ global_id('cosrec', 'profile_users_ranked.source_user_id') }} as string) as user_id,
        cast(qrels.grade as integer) as grade,
        cast(
            case when qrels.is_personalised then 'recommendation' else 'search' end as string
        ) as judgment_kind
    from qrels
    left join intent_turns
        on qrels.intent_id = intent_turns.intent_id
    left join profile_users_ranked
        on intent_turns.conversation_id = profile_users_ranked.conversation_id
        and qrels.user_index = profile_users_ranked.user_index

)

select * from final
