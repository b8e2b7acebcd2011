{#-
    Custom ratings in the conformed contract: each `ratings` entry of a conversation (turn_index
    NULL) and each user/assistant message's `rating` (aspect 'message_rating'). A JSON null is no
    rating; ingest rejects a record with a rating that is not a number, so raw_value (such a
    value's text, with a NULL value) stays empty. Who rated: corpus.json's rater_kind (default author); a 'user'
    rating is the conversation's user's.
-#}

with

conversations as (

    select * from {{ ref('int_custom__conversations') }}

),

turns as (

    select * from {{ ref('int_custom__turns') }}

),

conversation_ratings as (

    select
        conversations.conversation_id,
        cast(null as integer) as turn_index,
        conversations.rater_kind,
        conversations.source_user_id,
        aspect_ratings.entry.key as aspect,
        aspect_ratings.entry.value as rating
    from conversations
    cross join
        unnest({{ parse_json_object_entries('conversations.ratings') }})
        as aspect_ratings (entry)

),

message_ratings as (

    select
        conversation_id,
        turn_index,
        rater_kind,
        source_user_id,
        'message_rating' as aspect,
        rating
    from turns
    where rating is not null

),

ratings as (

    select * from conversation_ratings
    union all
    select * from message_ratings

),

conformed as (

    select
        cast(conversation_id as varchar) as conversation_id,
        cast(turn_index as integer) as turn_index,
        cast(null as varchar) as item_id,
        cast(rater_kind as varchar) as rater_kind,
        cast(
            case when rater_kind = 'user' then {{ global_id('custom', 'source_user_id') }} end
            as varchar
        ) as rater_id,
        cast(aspect as varchar) as aspect,
        cast(
            case
                when {{ json_type_of('rating') }} in ('UBIGINT', 'BIGINT', 'HUGEINT', 'DOUBLE')
                    then {{ json_text('rating') }}
            end as double
        ) as value,
        cast(
            case
                when {{ json_type_of('rating') }} not in ('UBIGINT', 'BIGINT', 'HUGEINT', 'DOUBLE')
                    then {{ json_text('rating') }}
            end as varchar
        ) as raw_value,
        cast(null as varchar) as comment
    from ratings
    where {{ json_type_of('rating') }} <> 'NULL'

)

select * from conformed
