{#- One row per item: RecoReact products and CoSRec judged products (ASINs) and passages. -#}

with

unioned as (
    {{ conformed_union(
        relations=conformed_relations('items'),
        columns=[
            'item_id', 'corpus', 'source_item_id', 'item_kind', 'title', 'description', 'category', 'url',
        ],
    ) }}
)

select * from unioned
