{#-
    The CTEs `unnested` and `per_user` of a CoSRec per-user file (keywords.json, profiles.json:
    one line {"<conversation id>": {"<user id>": value}} a conversation), after the model's
    `source` CTE (which names its source, as csrwh.pipeline.lineage reads it): `per_user` has
    one row per conversation and user -- conversation_user_id, conversation_id, source_user_id,
    partition_name (the dataset folder) and `value_name`, the user's value as JSON. The staging
    model selects from `per_user` and types its value.
-#}
{% macro cosrec_user_entries(value_name) %}
unnested as (

    select
        source.record_key as conversation_id,
        source.source_path,
        user_entries.entry.key as source_user_id,
        user_entries.entry.value as {{ value_name }}
    from source
    {{ unnest_join(parse_json_object_entries(cosrec_keyed_value('source.payload')), 'user_entries', 'entry') }}

),

per_user as (

    select
        conversation_id || '#' || source_user_id as conversation_user_id,
        conversation_id,
        source_user_id,
        regexp_extract(source_path, '^dataset/([^/]+)/', 1) as partition_name,
        {{ value_name }}
    from unnested

)
{% endmacro %}
