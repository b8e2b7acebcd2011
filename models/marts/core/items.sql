{#- One row per item: RecoReact products and CoSRec judged products (ASINs) and passages. -#}

with

unioned as (
    {{ conformed_union(
        relations=[
            ref('int_cosrec__items_conformed'),
            ref('int_recoreact__items_conformed'),
        ],
        columns=[
            'item_id', 'corpus', 'source_item_id', 'item_kind', 'title', 'description', 'category', 'url',
        ],
    ) }}
)

select * from unioned
