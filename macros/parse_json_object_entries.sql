{#-
    The entries of a JSON object as a list of struct(key varchar, value json), in key order
    of the document, for `cross join unnest(...)`. NULL or non-object input gives NULL.
    parse_json_object_entries('{"a": 1, "b": "x"}') = [{key: a, value: 1}, {key: b, value: "x"}].
-#}
{% macro parse_json_object_entries(json_object) -%}
    {{ return(adapter.dispatch('parse_json_object_entries', 'csrwh')(json_object)) }}
{%- endmacro %}

{% macro default__parse_json_object_entries(json_object) -%}
    map_entries(
        cast(
            case when json_type({{ json_object }}) = 'OBJECT' then {{ json_object }} end
            as map(varchar, json)
        )
    )
{%- endmacro %}
