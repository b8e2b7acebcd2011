with

source as (

    select * from {{ source('convsearch', 'search_behaviors') }}

),

unnested as (

    select
        source.payload ->> '$.id' as query_id,
        source.payload ->> '$.belong_dialog' as dialog_id,
        pagelogs.pagelog,
        pagelogs.pagelog_number
    from source
    cross join
        unnest(cast(source.payload -> '$.landingpage_pagelogs[*]' as json[]))
        with ordinality as pagelogs (pagelog, pagelog_number)

),

renamed as (

    select
        ----------  ids
        pagelog ->> '$.id' as landing_pagelog_id,
        query_id,
        dialog_id,

        ----------  strings
        pagelog ->> '$.url' as url,
        pagelog ->> '$.html_name' as html_name,

        ----------  numerics
        cast(pagelog_number - 1 as integer) as pagelog_position,
        -- 0..4, the agent's view of the page's helpfulness for its response
        cast(pagelog ->> '$."helpfulness-pagelog"' as double) as helpfulness,
        cast(pagelog ->> '$.dwell_time' as bigint) as dwell_ms,

        ----------  timestamps (upstream: integer milliseconds since the epoch, UTC)
        epoch_ms(cast(pagelog ->> '$.start_time' as bigint)) as started_at,
        epoch_ms(cast(pagelog ->> '$.end_time' as bigint)) as ended_at

    from unnested

)

select * from renamed
