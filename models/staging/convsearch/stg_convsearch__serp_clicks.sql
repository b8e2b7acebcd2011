-- One row per clicked result of a SERP page log. Upstream `clicked_results` is a
-- JSON-encoded string holding a list of {href, type, id}; it is parsed here.

with

source as (

    select * from {{ source('convsearch', 'search_behaviors') }}

),

{#- Memory: the payload is parsed once, by one from_json that keeps
    only the page-log ids and clicked results, then each clicked_results list once; every
    unnest is in a select list (a lateral `cross join unnest(...)` is decorrelated by DuckDB
    into a hash join on its input, here the whole payload). Fields are read as text, so the
    casts below see what `->>` gave. Same rows. -#}
queries as (

    select
        {{ json_struct('payload', {'id': 'VARCHAR', 'belong_dialog': 'VARCHAR', 'serp_pagelogs': [{'id': 'VARCHAR', 'clicked_results': 'JSON'}]}) }} as query
    from source

),

pagelogs as (

    select
        query.id as query_id,
        query.belong_dialog as dialog_id,
        {{ unnest_list('query.serp_pagelogs') }} as pagelog
    from queries

),

clicked_results as (

    select
        query_id,
        dialog_id,
        pagelog.id as serp_pagelog_id,
        -- a JSON string holding a list; tolerate a plain JSON list too (an unparsable
        -- string, or anything but a list, gives no clicks)
        {{ json_struct(
            json_decode_string('pagelog.clicked_results'),
            [{'href': 'VARCHAR', 'type': 'VARCHAR', 'id': 'VARCHAR'}]
        ) }} as clicks
    from pagelogs

),

unnested as (

    select
        query_id,
        dialog_id,
        serp_pagelog_id,
        -- two lists of the same length unnest side by side: each click with its position
        {{ unnest_with_index('clicks', 'click', 'click_number', start=1) }}
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
