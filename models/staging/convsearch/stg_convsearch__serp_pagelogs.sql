with

source as (

    select * from {{ source('convsearch', 'search_behaviors') }}

),

{{ convsearch_pagelogs('serp_pagelogs', {'id': 'VARCHAR', 'url': 'VARCHAR', 'html_name': 'VARCHAR', 'clicked_results': 'VARCHAR', 'page_id': 'VARCHAR', 'dwell_time': 'VARCHAR', 'start_time': 'VARCHAR', 'end_time': 'VARCHAR'}) }},

renamed as (

    select
        ----------  ids
        pagelog.id as serp_pagelog_id,
        query_id,
        dialog_id,

        ----------  strings
        pagelog.url as url,
        pagelog.html_name as html_name,
        -- JSON-encoded string holding the list of clicked results (see stg_convsearch__serp_clicks)
        pagelog.clicked_results as clicked_results_json,

        ----------  numerics
        cast(pagelog_position as integer) as pagelog_position,
        cast(pagelog.page_id as integer) as page_number,
        cast(pagelog.dwell_time as bigint) as dwell_ms,

        ----------  timestamps (upstream: integer milliseconds since the epoch, UTC)
        {{ timestamp_from_millis("cast(pagelog.start_time as bigint)") }} as started_at,
        {{ timestamp_from_millis("cast(pagelog.end_time as bigint)") }} as ended_at

    from unnested

)

select * from renamed
