-- One row per clicked result of a SERP page log. Upstream `clicked_results` is a
-- JSON-encoded string holding a list of {href, type, id}; it is parsed here.

with

source as (

    select * from {{ source('convsearch', 'search_behaviors') }}

),

{#- Memory (BENCHMARKS.md, issue 14): the payload is parsed once, by one from_json that keeps
    only the page-log ids and clicked results, then each clicked_results list once; every
    unnest is in a select list (a lateral `cross join unnest(...)` is decorrelated by DuckDB
    into a hash join on its input, here the whole payload). Fields are read as text, so the
    casts below see what `->>` gave. Same rows. -#}
queries as (

    select
        from_json(
            payload,
            '{"id": "VARCHAR", "belong_dialog": "VARCHAR", "serp_pagelogs": [{
                "id": "VARCHAR", "clicked_results": "JSON"
            }]}'
        ) as query
    from source

),

pagelogs as (

    select
        query.id as query_id,
        query.belong_dialog as dialog_id,
        unnest(query.serp_pagelogs) as pagelog
    from queries

),

clicked_results as (

    select
        query_id,
        dialog_id,
        pagelog.id as serp_pagelog_id,
        from_json(
            -- a JSON string holding a list; tolerate a plain JSON list too (an unparsable
            -- string, or anything but a list, gives no clicks)
            case
                when json_type(pagelog.clicked_results) = 'VARCHAR'
                    then try_cast(pagelog.clicked_results ->> '$' as json)
                else pagelog.clicked_results
            end,
            '[{"href": "VARCHAR", "type": "VARCHAR", "id": "VARCHAR"}]'
        ) as clicks
    from pagelogs

),

unnested as (

    select
        query_id,
        dialog_id,
        serp_pagelog_id,
        -- two lists of the same length unnest side by side: each click with its position
        unnest(clicks) as click,
        unnest(range(1, len(clicks) + 1)) as click_number
    from clicked_results

),

renamed as (

    select
        ----------  ids
        serp_pagelog_id,
        query_id,
        dialog_id,

        ----------  strings
        click.href as href,
        -- content (a result's landing page) or tab (a navigator tab of the SERP)
        click.type as click_type,

        ----------  numerics
        -- 1-based position of the click in the clicked_results list (click order)
        cast(click_number as integer) as click_position,
        -- upstream `id`: rank of the clicked result in display order
        cast(click.id as integer) as result_rank

    from unnested

)

select * from renamed
