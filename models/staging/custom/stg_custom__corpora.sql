{#- One row per custom/<name>/corpus.json: the corpus-wide defaults a custom corpus declares. -#}

with

source as (

    select * from {{ source('custom', 'corpora') }}

),

renamed as (

    select
        ----------  ids
        split_part(source_path, '/', 1) as corpus_name,

        ----------  strings
        {{ json_text('payload', '$.language') }} as language,
        {{ json_text('payload', '$.domain') }} as domain,
        {{ json_text('payload', '$.rater_kind') }} as rater_kind,
        {{ json_text('payload', '$.label_source') }} as label_source,
        source_path,

        ----------  timestamps
        ingested_at

    from source

)

select * from renamed
