with

source as (

    select * from {{ source('convsearch', 'search_behaviors') }}

),

{#- Memory (BENCHMARKS.md, issue 14): the payload is parsed once, by one from_json that keeps
    only the page-log fields (as text, so the casts below see what `->>` gave), and the page
    logs are unnested in the select list. A lateral `cross join unnest(...)` is decorrelated by
    DuckDB into a hash join on the whole payload, and one `->>` per field re-parsed each page
    log. Same rows. -#}
queries as (

    select
        {{ json_struct('payload', {'id': 'VARCHAR', 'belong_dialog': 'VARCHAR', 'landingpage_pagelogs': [{'id': 'VARCHAR', 'url': 'VARCHAR', 'html_name': 'VARCHAR', 'helpfulness-pagelog': 'VARCHAR', 'dwell_time': 'VARCHAR', 'start_time': 'VARCHAR', 'end_time': 'VARCHAR'}]}) }} as query
    from source

),

unnested as (

    select
        query.id as query_id,
        query.belong_dialog as dialog_id,
        -- two lists of the same length unnest side by side: each page log with its position
        {{ unnest_with_index('query.landingpage_pagelogs', 'pagelog', 'pagelog_position') }}
    from queries

),

renamed as (

    select
        ----------  ids
        pagelog.id as landing_pagelog_id,
        query_id,
        dialog_id,

        ----------  strings
        pagelog.url as url,
        pagelog.html_name as html_name,

        ----------  numerics
        cast(pagelog_position as integer) as pagelog_position,
        -- 0..4, the agent's view of the page's helpfulness for its response
        cast(pagelog.{{ adapter.quote('helpfulness-pagelog') }} as double) as helpfulness,
        cast(pagelog.dwell_time as bigint) as dwell_ms,

        ----------  timestamps (upstream: integer milliseconds since the epoch, UTC)
        {{ timestamp_from_millis("cast(pagelog.start_time as bigint)") }} as started_at,
        {{ timestamp_from_millis("cast(pagelog.end_time as bigint)") }} as ended_at

    from unnested

)

select * from renamed
