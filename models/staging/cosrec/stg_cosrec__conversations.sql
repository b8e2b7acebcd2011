with

source as (

    select * from {{ source('cosrec', 'conversations') }}

),

renamed as (

    select
        ----------  ids
        record_key as conversation_id,

        ----------  strings
        -- dataset/<partition>/conversations.jsonl: raw, crowd or curated
        regexp_extract(source_path, '^dataset/([^/]+)/', 1) as partition_name,
        {{ json_text(cosrec_keyed_value('payload')) }} as conversation_text,
        source_path,

        ----------  numerics
        line_number,
        record_index,

        ----------  timestamps
        ingested_at

    from source

)

select * from renamed
