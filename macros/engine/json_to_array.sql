{#- Spark implementations of as_json and json_to_array (macros/json.sql), on the form macros/engine/json_text.sql documents. -#}
{% macro spark__as_json(text_expr) -%}
    ({{ text_expr }})
{%- endmacro %}

{% macro spark__json_to_array(json_expr) -%}
    case when {{ spark__json_type_of(json_expr) }} = 'ARRAY' then from_json({{ json_expr }}, 'array<string>') end
{%- endmacro %}
