with

source as (

    select * from {{ source('cosrec', 'qrels') }}

),

split as (

    select
        source_path,
        line_number,
        -- TREC qrels line "topic iteration doc grade"; parsed from the verbatim record text,
        -- which the raw contract fixes (the payload's field names are the ingest's choice)
        {{ regexp_split('trim(source_text)', '\\s+') }} as fields
    from source

),

renamed as (

    select
        ----------  ids
        {{ array_at('fields', 1) }} || ' ' || {{ array_at('fields', 3) }} as qrel_id,
        {{ array_at('fields', 1) }} as topic_id,
        -- personalised recommendation topics are "<intent id>#<user index>"
        split_part({{ array_at('fields', 1) }}, '#', 1) as intent_id,
        {{ array_at('fields', 3) }} as doc_id,

        ----------  strings
        regexp_extract(source_path, '^dataset/([^/]+)/', 1) as partition_name,
        {{ array_at('fields', 2) }} as iteration,

        ----------  numerics
        case
            when contains({{ array_at('fields', 1) }}, '#')
            then cast(split_part({{ array_at('fields', 1) }}, '#', 2) as integer)
        end as user_index,
        cast({{ array_at('fields', 4) }} as integer) as grade,
        line_number,

        ----------  booleans
        contains({{ array_at('fields', 1) }}, '#') as is_personalised

    from split

)

select * from renamed
