{#-
    Join each row to the elements of a list (the FROM clause's last item): one row per element,
    none for an empty or NULL list; `ordinal` names a 1-based position column (BIGINT).
    unnest_join('json_list(...)', 'utterances', 'utterance', 'utterance_number') =
    DuckDB `cross join unnest(...) with ordinality as utterances (utterance, utterance_number)`,
    Spark `lateral view inline(...) utterances` (columns read as utterances.utterance etc.).
-#}
{% macro unnest_join(list_expr, alias, value, ordinal=none) -%}
    {{ return(adapter.dispatch('unnest_join', 'csrwh')(list_expr, alias, value, ordinal)) }}
{%- endmacro %}

{% macro default__unnest_join(list_expr, alias, value, ordinal=none) -%}
    cross join
        unnest({{ list_expr }})
        {% if ordinal %}with ordinality {% endif %}as {{ alias }} ({{ value }}{% if ordinal %}, {{ ordinal }}{% endif %})
{%- endmacro %}

{% macro spark__unnest_join(list_expr, alias, value, ordinal=none) -%}
    {%- if ordinal %}
    lateral view inline(transform(
        {{ list_expr }},
        (csrwh_element, csrwh_index) -> named_struct(
            '{{ value }}', csrwh_element, '{{ ordinal }}', cast(csrwh_index + 1 as bigint)
        )
    )) {{ alias }}
    {%- else %}
    lateral view explode({{ list_expr }}) {{ alias }} as {{ value }}
    {%- endif %}
{%- endmacro %}
