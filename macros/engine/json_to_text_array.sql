{#- Spark implementation of json_to_text_array (macros/json.sql): strings without their quotes. -#}
{% macro spark__json_to_text_array(json_expr) -%}
    from_json({{ json_expr }}, 'array<string>')
{%- endmacro %}
