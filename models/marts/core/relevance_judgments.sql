{#- Published as-is from its single corpus' intermediate model; see the yml for columns. -#}

with

relevance_judgments as (
    select * from {{ ref('int_cosrec__relevance_judgments') }}
)

select * from relevance_judgments
