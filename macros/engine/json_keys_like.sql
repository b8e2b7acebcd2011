{#- The top-level keys of a JSON object that match a LIKE pattern, in document order: json_keys_like('payload', 'strategy%'). -#}
{% macro json_keys_like(json_expr, pattern) -%}
    {{ return(adapter.dispatch('json_keys_like', 'csrwh')(json_expr, pattern)) }}
{%- endmacro %}

{% macro default__json_keys_like(json_expr, pattern) -%}
    list_filter(json_keys({{ json_expr }}), lambda key: key like '{{ pattern }}')
{%- endmacro %}

{% macro spark__json_keys_like(json_expr, pattern) -%}
    filter(map_keys(from_json({{ json_expr }}, 'map<string,string>')), csrwh_key -> csrwh_key like '{{ pattern }}')
{%- endmacro %}
