{#- The JSON value of a top-level key given as a SQL expression: json_get_key('payload', 'scheme'). -#}
{% macro json_get_key(json_expr, key_expr) -%}
    {{ return(adapter.dispatch('json_get_key', 'csrwh')(json_expr, key_expr)) }}
{%- endmacro %}

{% macro default__json_get_key(json_expr, key_expr) -%}
    {{ json_expr }} -> ('$."' || {{ key_expr }} || '"')
{%- endmacro %}

{% macro spark__json_get_key(json_expr, key_expr) -%}
    try_element_at(from_json({{ json_expr }}, 'map<string,string>'), {{ key_expr }})
{%- endmacro %}
