{#-
    The CTEs `queries` and `unnested` of a ConvSearch page-log staging model, after its `source`
    CTE (search_behaviors, named in the model as csrwh.pipeline.lineage reads it): each search
    query with the page logs of its list `list_key`
    (serp_pagelogs, landingpage_pagelogs), one row per page log -- query_id, dialog_id,
    `pagelog` (a struct of `pagelog_fields`, a dict name -> 'VARCHAR') and `pagelog_position`
    (its 1-based position in the list). The staging model selects from `unnested`.

    Memory: the payload is parsed once, by one from_json that keeps
    only the page-log fields (as text, so the casts of the model see what `->>` gave), and the
    page logs are unnested in the select list. A lateral `cross join unnest(...)` is
    decorrelated by DuckDB into a hash join on the whole payload, and one `->>` per field
    re-parsed each page log. Same rows.
-#}
{% macro convsearch_pagelogs(list_key, pagelog_fields) %}
queries as (

    select
        {{ json_struct('payload', {'id': 'VARCHAR', 'belong_dialog': 'VARCHAR', list_key: [pagelog_fields]}) }} as query
    from source

),

unnested as (

    select
        query.id as query_id,
        query.belong_dialog as dialog_id,
        -- two lists of the same length unnest side by side: each page log with its position
        {{ unnest_with_index('query.' ~ list_key, 'pagelog', 'pagelog_position') }}
    from queries

)
{% endmacro %}
