{#- Published as-is from its single corpus' intermediate model; see the yml for columns. -#}

with

votes as (
    select * from {{ ref('int_crsarena__votes') }}
)

select * from votes
