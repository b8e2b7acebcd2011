with

source as (

    select * from {{ source('recoreact', 'products') }}

),

renamed as (

    select
        ----------  ids
        payload ->> '$.pid' as product_id,

        ----------  strings
        regexp_extract(source_path, '([a-z]+)-products\.jsonl$', 1) as domain,
        payload ->> '$.title' as title,
        payload ->> '$.description' as description,
        payload ->> '$.category' as category,
        payload ->> '$.thumbnail' as thumbnail_url,
        source_path,

        ----------  numerics
        record_index,

        ----------  timestamps
        ingested_at

    from source

)

select * from renamed
