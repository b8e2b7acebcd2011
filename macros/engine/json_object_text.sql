{#-
    Spark implementation of json_object_text (macros/json.sql): to_json of a struct, NULL
    fields kept (DuckDB's json_object keeps them; to_json drops them unless told).
-#}
{% macro spark__json_object_text(keys_and_values) -%}
    to_json(
        named_struct(
        {%- for item in keys_and_values %}
        {% if loop.index is odd %}'{{ item }}'{% else %}{{ item }}{% endif %}{{ "," if not loop.last }}
        {%- endfor %}
        ),
        map('ignoreNullFields', 'false')
    )
{%- endmacro %}
