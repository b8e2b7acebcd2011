with

products as (

    select * from {{ ref('stg_recoreact__products') }}

),

conformed as (

    select
        cast('recoreact:' || domain || ':' || product_id as varchar) as item_id,
        cast('recoreact' as varchar) as corpus,
        cast(product_id as varchar) as source_item_id,
        cast(domain as varchar) as item_kind,
        cast(title as varchar) as title,
        cast(description as varchar) as description,
        cast(category as varchar) as category,
        cast(thumbnail_url as varchar) as url
    from products

)

select * from conformed
