{#-
    JSON helpers for models past staging, so engine-specific JSON syntax stays in one place
    (DuckDB implementations; another engine adds its own `<adapter>__` versions).
-#}

{#- The JSON type of a value: 'OBJECT', 'ARRAY', 'VARCHAR', 'BIGINT', 'BOOLEAN', 'NULL', ... -#}
{% macro json_type_of(json_expr) -%}
    {{ return(adapter.dispatch('json_type_of', 'csrwh')(json_expr)) }}
{%- endmacro %}

{% macro default__json_type_of(json_expr) -%}
    json_type({{ json_expr }})
{%- endmacro %}

{#- The text at a JSONPath ('$' = the value itself, unquoted when it is a string). -#}
{% macro json_text(json_expr, path='$') -%}
    {{ return(adapter.dispatch('json_text', 'csrwh')(json_expr, path)) }}
{%- endmacro %}

{% macro default__json_text(json_expr, path='$') -%}
    ({{ json_expr }} ->> '{{ path }}')
{%- endmacro %}

{#-
    A JSON object as text from alternating key names and SQL expressions: json_object_text(['k',
    'expr', ...]). A value of a JSON type may be given as {'json': 'expr'} and a list of JSON
    values as {'json_list': 'expr'}: the same SQL here, but an engine whose JSON values are
    plain text (Spark, macros/engine/json_object_text.sql) needs to know them.
-#}
{% macro json_object_text(keys_and_values) -%}
    {{ return(adapter.dispatch('json_object_text', 'csrwh')(keys_and_values)) }}
{%- endmacro %}

{% macro default__json_object_text(keys_and_values) -%}
    cast(json_object(
        {%- for item in keys_and_values %}
        {% if loop.index is odd %}'{{ item }}'{% elif item is mapping %}{{ item.values() | first }}{% else %}{{ item }}{% endif %}{{ "," if not loop.last }}
        {%- endfor %}
    ) as varchar)
{%- endmacro %}

{#- A JSON object (text) without the given top-level keys. -#}
{% macro json_without_keys(json_expr, keys) -%}
    {{ return(adapter.dispatch('json_without_keys', 'csrwh')(json_expr, keys)) }}
{%- endmacro %}

{% macro default__json_without_keys(json_expr, keys) -%}
    json_merge_patch({{ json_expr }}, '{ {%- for key in keys %}"{{ key }}": null{{ ", " if not loop.last }}{%- endfor %} }')
{%- endmacro %}

{#- Aggregate: a JSON object mapping key_expr -> value_expr (a JSON value) over the group's rows with a non-null value, '{}' when none. -#}
{% macro json_object_agg_text(key_expr, value_expr, order_by) -%}
    {{ return(adapter.dispatch('json_object_agg_text', 'csrwh')(key_expr, value_expr, order_by)) }}
{%- endmacro %}

{% macro default__json_object_agg_text(key_expr, value_expr, order_by) -%}
    coalesce(
        cast(
            map_from_entries(
                list({'key': {{ key_expr }}, 'value': {{ value_expr }}} order by {{ order_by }})
                    filter (where {{ value_expr }} is not null)
            ) as json
        ),
        json('{}')
    )
{%- endmacro %}

{#- A JSON array of strings as a SQL array of text (to unnest). -#}
{% macro json_to_text_array(json_expr) -%}
    {{ return(adapter.dispatch('json_to_text_array', 'csrwh')(json_expr)) }}
{%- endmacro %}

{% macro default__json_to_text_array(json_expr) -%}
    cast({{ json_expr }} as varchar[])
{%- endmacro %}

{#- Text holding JSON, typed as JSON. -#}
{% macro as_json(text_expr) -%}
    {{ return(adapter.dispatch('as_json', 'csrwh')(text_expr)) }}
{%- endmacro %}

{% macro default__as_json(text_expr) -%}
    cast({{ text_expr }} as json)
{%- endmacro %}

{#- A JSON array as a SQL array of JSON values (to unnest); NULL for a non-array. -#}
{% macro json_to_array(json_expr) -%}
    {{ return(adapter.dispatch('json_to_array', 'csrwh')(json_expr)) }}
{%- endmacro %}

{% macro default__json_to_array(json_expr) -%}
    cast(case when json_type({{ json_expr }}) = 'ARRAY' then {{ json_expr }} end as json[])
{%- endmacro %}
