{#-
    One row per line of custom/<name>/*.jsonl (docs/ADDING_A_CORPUS.md): the conversation's
    fields typed and renamed. Nothing is dropped: `other_fields` keeps every part of the record
    no other column or model reads (metadata, keys the format does not know, system messages,
    unknown message keys), which becomes conversations.source_attributes.
-#}

with

source as (

    select * from {{ source('custom', 'conversations') }}

),

renamed as (

    select
        ----------  ids
        -- the corpus name: the folder under custom/ (source_path is '<name>/<file>.jsonl')
        split_part(source_path, '/', 1) as corpus_name,
        -- `id` when it is a non-empty string, else NULL (ingest rejects such records (ingest/custom.py))
        case
            when json_type(payload, '$.id') = 'VARCHAR' and payload ->> '$.id' <> ''
                then payload ->> '$.id'
        end as source_id,
        payload ->> '$.user_id' as source_user_id,
        payload ->> '$.system_id' as system_id,

        ----------  strings
        nullif(payload ->> '$.subset', '') as subset,
        payload ->> '$.task' as task,
        payload ->> '$.language' as language,
        -- {"<aspect>": number}: conversation-level ratings, unnested in int_custom__ratings_conformed
        payload -> '$.ratings' as ratings,
        -- the record without the keys modelled elsewhere (metadata, language and unknown keys
        -- stay), plus "messages": every message part no turn column, intent or rating holds --
        -- a whole message when it is not a user/assistant turn (system messages), else its
        -- keys other than role, text, labels and rating -- as {"message_index", "message"}
        json_merge_patch(
            json_merge_patch(
                payload,
                '{"id": null, "subset": null, "task": null, "user_id": null, "system_id": null, '
                || '"ratings": null, "messages": null}'
            ),
            json_object(
                'messages',
                nullif(
                    list_filter(
                        list_transform(
                            cast(payload -> '$.messages[*]' as json[]),
                            lambda message, position: case
                                when message ->> '$.role' not in ('user', 'assistant')
                                    or json_type(message) <> 'OBJECT'
                                    or message ->> '$.role' is null
                                    then json_object('message_index', position - 1, 'message', message)
                                when json_merge_patch(
                                        message, '{"role": null, "text": null, "labels": null, "rating": null}'
                                    )::varchar <> '{}'
                                    then json_object(
                                        'message_index', position - 1,
                                        'message', json_merge_patch(
                                            message, '{"role": null, "text": null, "labels": null, "rating": null}'
                                        )
                                    )
                            end
                        ),
                        lambda part: part is not null
                    ),
                    []
                )
            )
        ) as other_fields,
        source_path,

        ----------  numerics
        record_index,
        line_number,

        ----------  timestamps
        ingested_at

    from source

)

select * from renamed
