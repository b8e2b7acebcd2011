with

products as (

    select * from {{ ref('stg_recoreact__products') }}

),

conformed as (

    select
        cast('recoreact:' || domain || ':' || product_id as string) as item_id,
        cast('recoreact' as string) as corpus,
        cast(product_id as string) as source_item_id,
        cast(domain as string) as item_kind,
        cast(title as string) as title,
        cast(description as string) as description,
        cast(category as string) as category,
        cast(thumbnail_url as string) as url
    from products

)

select * from conformed
