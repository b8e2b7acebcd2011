{#-
    Own corpora's relevance judgments (custom/<name>/<kind>.qrels) in the conformed judgments
    contract: collection 'custom:<name>'; a topic id equal to one of the corpus' conversation
    ids links to that conversation (and its first user turn).
-#}

with

qrels as (

    select * from {{ ref('stg_custom__qrels') }}

),

conversations as (

    select * from {{ ref('int_custom__conversations_conformed') }}

),

turns as (

    select * from {{ ref('int_custom__turns_conformed') }}

),

first_user_turns as (

    select
        conversation_id,
        min(turn_index) as turn_index
    from turns
    where role = 'user'
    group by conversation_id

),

linked as (

    select
        qrels.*,
        {{ global_id('custom', 'qrels.corpus_name') }} as collection,
        conversations.conversation_id
    from qrels
    left join conversations
        on conversations.conversation_id
        = {{ global_id('custom', dbt.concat(['qrels.corpus_name', "'/'", 'qrels.topic_id'])) }}

),

final as (

    -- the conformed judgments contract (the relevance_judgments mart's columns), in order
    select
        cast(
            {{ dbt.concat(['linked.collection', "'/'", 'linked.judgment_kind', "':'", 'linked.topic_id', "' '", 'linked.doc_id']) }}
            as string
        ) as judgment_id,
        cast(linked.collection as string) as collection,
        cast('custom' as string) as corpus,
        cast(linked.topic_id as string) as topic_id,
        cast(linked.doc_id as string) as doc_id,
        cast(null as string) as item_id,
        cast(linked.conversation_id as string) as conversation_id,
        cast(first_user_turns.turn_index as integer) as turn_index,
        cast(null as string) as intent_id,
        cast(null as integer) as user_index,
        cast(null as string) as user_id,
        cast(linked.grade as integer) as grade,
        cast(linked.judgment_kind as string) as judgment_kind
    from linked
    left join first_user_turns
        on linked.conversation_id = first_user_turns.conversation_id

)

select * from final
