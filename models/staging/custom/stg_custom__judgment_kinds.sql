{#- One row per judgment kind of a custom corpus.json's `judgment_kinds` object. -#}

with

source as (

    select * from {{ source('custom', 'corpora') }}

),

unnested as (

    select
        source.source_path,
        kinds.entry.key as judgment_kind,
        kinds.entry.value as kind
    from source
    {{ unnest_join(
        parse_json_object_entries(json_get('source.payload', '$.judgment_kinds')), 'kinds', 'entry'
    ) }}

),

renamed as (

    select
        ----------  ids
        split_part(source_path, '/', 1) as corpus_name,

        ----------  strings
        judgment_kind,
        {{ json_text('kind', '$.description') }} as description,

        ----------  numerics
        try_cast({{ json_text('kind', '$.min') }} as integer) as grade_min,
        try_cast({{ json_text('kind', '$.max') }} as integer) as grade_max,

        ----------  booleans
        -- NULL when not given (int_custom__judgment_kinds defaults it to false)
        try_cast({{ json_text('kind', '$.implicit') }} as boolean) as is_implicit

    from unnested

)

select * from renamed
