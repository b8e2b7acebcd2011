with

source as (

    select * from {{ source('convsearch', 'search_behaviors') }}

),

{{ convsearch_pagelogs('landingpage_pagelogs', {'id': 'VARCHAR', 'url': 'VARCHAR', 'html_name': 'VARCHAR', 'helpfulness-pagelog': 'VARCHAR', 'dwell_time': 'VARCHAR', 'start_time': 'VARCHAR', 'end_time': 'VARCHAR'}) }},

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
