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
        regexp_split_to_array(trim(source_text), '\s+') as fields
    from source

),

renamed as (

    select
        ----------  ids
        fields[1] || ' ' || fields[3] as qrel_id,
        fields[1] as topic_id,
        -- personalised recommendation topics are "<intent id>#<user index>"
        split_part(fields[1], '#', 1) as intent_id,
        fields[3] as doc_id,

        ----------  strings
        regexp_extract(source_path, '^dataset/([^/]+)/', 1) as partition_name,
        fields[2] as iteration,

        ----------  numerics
        case
            when contains(fields[1], '#') then cast(split_part(fields[1], '#', 2) as integer)
        end as user_index,
        cast(fields[4] as integer) as grade,
        line_number,

        ----------  booleans
        contains(fields[1], '#') as is_personalised

    from split

)

select * from renamed
