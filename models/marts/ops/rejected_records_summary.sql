{#- What the ingest rejected, per corpus and raw table (from raw.rejected_records): for the
    dashboard's Data health page, which reads marts only. -#}

with

rejected_records as (
    select * from {{ source('ingest', 'rejected_records') }}
),

final as (
    select
        -- strings
        corpus,
        table_name,
        min(error) as example_error,
        -- numerics
        count(*) as n_rejected,
        count(distinct source_path) as n_files,
        -- timestamps
        min(rejected_at) as first_rejected_at,
        max(rejected_at) as last_rejected_at
    from rejected_records
    group by corpus, table_name
)

select
    corpus,
    table_name,
    example_error,
    n_rejected,
    n_files,
    first_rejected_at,
    last_rejected_at
from final
