with

source as (

    select * from {{ source('recoreact', 'products') }}

),

renamed as (

    select
        ----------  ids
        {{ json_text('payload', '$.pid') }} as product_id,

        ----------  strings
        regexp_extract(source_path, '([a-z]+)-products\.jsonl$', 1) as domain,
        {{ json_text('payload', '$.title') }} as title,
        {{ json_text('payload', '$.description') }} as description,
        {{ json_text('payload', '$.category') }} as category,
        {{ json_text('payload', '$.thumbnail') }} as thumbnail_url,
        source_path,

        ----------  numerics
        record_index,

        ----------  timestamps
        ingested_at

    from source

)

select * from renamed
