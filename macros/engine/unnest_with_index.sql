{#-
    In a select list (as its own items, no alias after it): each element of a list with its
    position counted from `start` (0 or 1), as two columns:
    unnest_with_index('messages', 'message', 'message_index'). DuckDB unnests the list and
    range(...) side by side; Spark has posexplode (start 0) or inline of (value, index) structs.
-#}
{% macro unnest_with_index(list_expr, value, index, start=0) -%}
    {{ return(adapter.dispatch('unnest_with_index', 'csrwh')(list_expr, value, index, start)) }}
{%- endmacro %}

{% macro default__unnest_with_index(list_expr, value, index, start=0) -%}
    unnest({{ list_expr }}) as {{ value }},
    {%- if start == 0 %}
        unnest(range(len({{ list_expr }}))) as {{ index }}
    {%- else %}
        unnest(range({{ start }}, len({{ list_expr }}) + {{ start }})) as {{ index }}
    {%- endif %}
{%- endmacro %}

{% macro spark__unnest_with_index(list_expr, value, index, start=0) -%}
    {%- if start == 0 -%}
        posexplode({{ list_expr }}) as ({{ index }}, {{ value }})
    {%- else -%}
        inline(transform(
            {{ list_expr }},
            (csrwh_element, csrwh_position) -> named_struct(
                '{{ value }}', csrwh_element, '{{ index }}', cast(csrwh_position + {{ start }} as bigint)
            )
        ))
    {%- endif -%}
{%- endmacro %}
