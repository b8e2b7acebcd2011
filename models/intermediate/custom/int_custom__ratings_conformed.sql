{#-
    Custom ratings in the conformed contract: each conversation rating (turn_index NULL) and each
    user/assistant message's ratings -- its `rating` (aspect 'message_rating') and the ratings of
    its `turn_annotations` element (as `csrwh export` writes them). A JSON null with no raw text
    is no rating; ingest rejects a rating that is neither a number nor null, so raw_value holds
    only the raw text an exported rating carries. Who rated: the rating's own rater_kind and
    rater_id when it names them, else corpus.json's rater_kind (default author), and a 'user'
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
        conversations.corpus_name,
        rated.entry
    from conversations
    {{ unnest_join('conversations.rating_entries', 'rated', 'entry') }}

),

message_ratings as (

    select
        conversation_id,
        turn_index,
        rater_kind,
        source_user_id,
        corpus_name,
        {{ custom_rating_entry("'message_rating'", "rating") }} as entry
    from turns
    where rating is not null

),

annotation_ratings as (

    select
        turns.conversation_id,
        turns.turn_index,
        turns.rater_kind,
        turns.source_user_id,
        turns.corpus_name,
        rated.entry
    from turns
    {{ unnest_join('turns.annotation_ratings', 'rated', 'entry') }}

),

ratings as (

    select * from conversation_ratings
    union all
    select * from message_ratings
    union all
    select * from annotation_ratings

),

conformed as (

    select
        cast(conversation_id as string) as conversation_id,
        cast(turn_index as integer) as turn_index,
        cast(null as string) as item_id,
        cast(coalesce(entry.rater_kind, rater_kind) as string) as rater_kind,
        cast(
            case
                when entry.rater_id is not null
                    then {{ global_id('custom', "corpus_name || '/' || entry.rater_id") }}
                when entry.rater_kind is null and rater_kind = 'user'
                    then {{ global_id('custom', 'source_user_id') }}
            end as string
        ) as rater_id,
        cast(entry.aspect as string) as aspect,
        cast(
            case
                when {{ json_type_of('entry.rating') }} in ('UBIGINT', 'BIGINT', 'HUGEINT', 'DOUBLE')
                    then {{ json_text('entry.rating') }}
            end as double
        ) as value,
        cast(
            coalesce(
                entry.raw_value,
                case
                    when {{ json_type_of('entry.rating') }} not in ('UBIGINT', 'BIGINT', 'HUGEINT', 'DOUBLE')
                        then {{ json_text('entry.rating') }}
                end
            ) as string
        ) as raw_value,
        cast(entry.comment as string) as comment
    from ratings
    where coalesce({{ json_type_of('entry.rating') }}, 'NULL') <> 'NULL' or entry.raw_value is not null

)

select * from conformed
