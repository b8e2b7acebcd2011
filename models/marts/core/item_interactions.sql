{#- Published as-is from its single corpus' intermediate model; see the yml for columns. -#}

with

item_interactions as (
    select * from {{ ref('int_recoreact__item_interactions') }}
)

select * from item_interactions
