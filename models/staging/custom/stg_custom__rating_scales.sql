{#- One row per aspect of a custom corpus.json's `rating_scales` object. -#}

with

source as (

    select * from {{ source('custom', 'corpora') }}

),

unnested as (

    select
        source.source_path,
        scales.entry.key as aspect,
        scales.entry.value as scale
    from source
    {{ unnest_join(
        parse_json_object_entries(json_get('source.payload', '$.rating_scales')), 'scales', 'entry'
    ) }}

),

renamed as (

    select
        ----------  ids
        split_part(source_path, '/', 1) as corpus_name,

        ----------  strings
        aspect,

        ----------  numerics
        try_cast({{ json_text('scale', '$.min') }} as double) as scale_min,
        try_cast({{ json_text('scale', '$.max') }} as double) as scale_max,

        ----------  booleans
        -- NULL when not given (int_custom__rating_scales defaults it to true)
        try_cast({{ json_text('scale', '$.higher_is_better') }} as boolean) as higher_is_better

    from unnested

)

select * from renamed
