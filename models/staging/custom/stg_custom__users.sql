{#-
    One row per line of an own corpus' custom/<name>/users.jsonl (docs/ADDING_A_CORPUS.md): a
    user and their profile. keywords may be any JSON value and attributes an object or a string
    holding one (ingest/custom.py): a string as written, anything else as its JSON text.
-#}

with

source as (

    select * from {{ source('custom', 'users') }}

),

renamed as (

    select
        ----------  ids
        -- the corpus name: the folder under custom/ (source_path is '<name>/users.jsonl')
        split_part(source_path, '/', 1) as corpus_name,
        -- `id`, or `user_id` when the line has no `id` (ingest rejects a line with neither)
        nullif(
            coalesce({{ json_text('payload', '$.id') }}, {{ json_text('payload', '$.user_id') }}), ''
        ) as source_user_id,

        ----------  strings
        nullif({{ json_text('payload', '$.subset') }}, '') as subset,
        {{ json_text('payload', '$.profile_text') }} as profile_text,
        {{ json_text('payload', '$.keywords') }} as keywords,
        {{ json_text('payload', '$.attributes') }} as attributes,
        source_path,

        ----------  numerics
        record_index,
        line_number,

        ----------  timestamps
        ingested_at

    from source

)

select * from renamed
