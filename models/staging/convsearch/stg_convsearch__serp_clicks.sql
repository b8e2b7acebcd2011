-- One row per clicked result of a SERP page log. Upstream `clicked_results` is a
-- JSON-encoded string holding a list of {href, type, id}; it is parsed here.

with

source as (

    select * from {{ source('convsearch', 'search_behaviors') }}

),

pagelogs as (

    select
        source.payload ->> '$.id' as query_id,
        source.payload ->> '$.belong_dialog' as dialog_id,
        pagelogs.pagelog ->> '$.id' as serp_pagelog_id,
        -- a JSON string holding a list; tolerate a plain JSON list too
        case
            when json_type(pagelogs.pagelog, '$.clicked_results') = 'VARCHAR'
                then try_cast(pagelogs.pagelog ->> '$.clicked_results' as json)
            else pagelogs.pagelog -> '$.clicked_results'
        end as clicked_results
    from source
    cross join unnest(cast(source.payload -> '$.serp_pagelogs[*]' as json[])) as pagelogs (pagelog)

),

unnested as (

    select
        pagelogs.query_id,
        pagelogs.dialog_id,
        pagelogs.serp_pagelog_id,
        clicks.click,
        clicks.click_number
    from pagelogs
    cross join
        unnest(cast(pagelogs.clicked_results -> '$[*]' as json[]))
        with ordinality as clicks (click, click_number)

),

renamed as (

    select
        ----------  ids
        serp_pagelog_id,
        query_id,
        dialog_id,

        ----------  strings
        click ->> '$.href' as href,
        -- content (a result's landing page) or tab (a navigator tab of the SERP)
        click ->> '$.type' as click_type,

        ----------  numerics
        -- 1-based position of the click in the clicked_results list (click order)
        cast(click_number as integer) as click_position,
        -- upstream `id`: rank of the clicked result in display order
        cast(click ->> '$.id' as integer) as result_rank

    from unnested

)

select * from renamed
