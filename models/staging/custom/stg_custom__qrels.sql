{#- One row per line of an own corpus' custom/<name>/<kind>.qrels (TREC "topic iteration doc grade"). -#}

with

source as (

    select * from {{ source('custom', 'qrels') }}

),

renamed as (

    select
        ----------  ids
        split_part(source_path, '/', 1) as corpus_name,
        {{ json_text('payload', '$.topic_id') }} as topic_id,
        {{ json_text('payload', '$.doc_id') }} as doc_id,

        ----------  strings
        -- the file's name without .qrels is the judgment kind
        replace(split_part(source_path, '/', 2), '.qrels', '') as judgment_kind,
        {{ json_text('payload', '$.iteration') }} as iteration,
        source_path,

        ----------  numerics
        cast({{ json_text('payload', '$.grade') }} as integer) as grade,
        line_number

    from source

)

select * from renamed
