{#- The longest text of a list, the first one on a tie: longest_text('query_variants'). -#}
{% macro longest_text(list_expr) -%}
    {{ return(adapter.dispatch('longest_text', 'csrwh')(list_expr)) }}
{%- endmacro %}

{% macro default__longest_text(list_expr) -%}
    list_reduce(
            {{ list_expr }},
            lambda longest, variant: case
                when length(variant) > length(longest) then variant else longest
            end
        )
{%- endmacro %}

{% macro spark__longest_text(list_expr) -%}
    aggregate(
        slice({{ list_expr }}, 2, greatest(size({{ list_expr }}) - 1, 0)),
        try_element_at({{ list_expr }}, 1),
        (longest, variant) -> case
            when length(variant) > length(longest) then variant else longest
        end
    )
{%- endmacro %}
