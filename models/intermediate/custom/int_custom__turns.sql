{#-
    The user and assistant messages of the custom conversations that reach the marts, with
    their turn_index: the position among those messages (system messages are no turns; they
    stay in conversations.source_attributes).

    The turns are numbered over the messages' keys alone (turn_positions), and the messages
    then stream through two joins with narrow tables: a window over the messages themselves
    holds every message's text at once (out of memory at a million conversations with the
    build's 1 GiB). The messages are read twice, by ref, not through one CTE: DuckDB keeps the
    rows of a CTE read twice, texts included.
-#}

with

conversations as (

    select * from {{ ref('int_custom__conversations') }}

),

messages as (

    select * from {{ ref('stg_custom__messages') }}

),

turn_positions as (

    select
        source_path,
        record_index,
        message_index,
        cast(
            row_number() over (partition by source_path, record_index order by message_index) - 1
            as integer
        ) as turn_index
    from {{ ref('stg_custom__messages') }}
    where role in ('user', 'assistant')

),

turn_messages as (

    select
        conversations.conversation_id,
        conversations.corpus_name,
        conversations.source_user_id,
        conversations.rater_kind,
        conversations.label_source,
        messages.role,
        messages.message_text,
        messages.labels,
        messages.rating,
        messages.annotation_intents,
        messages.annotation_ratings,
        messages.message_index,
        turn_positions.turn_index
    from messages
    inner join conversations
        on messages.source_path = conversations.source_path
        and messages.record_index = conversations.record_index
    inner join turn_positions
        on messages.source_path = turn_positions.source_path
        and messages.record_index = turn_positions.record_index
        and messages.message_index = turn_positions.message_index

),

final as (

    select
        -- ids
        conversation_id,
        source_user_id,
        -- strings
        corpus_name,
        -- the conformed roles: the assistant is the system side
        case role when 'user' then 'user' when 'assistant' then 'system' end as role,
        message_text,
        rater_kind,
        label_source,
        labels,
        rating,
        annotation_intents,
        annotation_ratings,
        -- numerics
        turn_index,
        message_index
    from turn_messages

)

select * from final
