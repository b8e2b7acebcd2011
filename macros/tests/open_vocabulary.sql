{#-
    Generic test for an OPEN vocabulary (docs/ARCHITECTURE.md, "Open and closed vocabularies"):
    returns one row per distinct value (combination of `columns`, SQL expressions) of `model`
    that `known` (a seed; `known_columns` in the same order, `known_where` to filter it) does
    not list, with how many rows carry it. Severity warn: a new value lands and publishes;
    the build prints one warning line per returned row and records it in dq_results.
    `vocabulary` names the vocabulary in those messages.
-#}
{% test open_vocabulary(model, columns, known, vocabulary, known_columns=none, known_where=none) %}
{{ config(severity='warn') }}
{%- set known_columns = known_columns or columns -%}

with

observed as (
    select
        {%- for column in columns %}
        cast({{ column }} as {{ dbt.type_string() }}) as value_{{ loop.index }},
        {%- endfor %}
        count(*) as n_rows
    from {{ model }}
    where {% for column in columns %}{{ column }} is not null{{ ' and ' if not loop.last }}{% endfor %}
    group by {% for column in columns %}{{ loop.index }}{{ ', ' if not loop.last }}{% endfor %}
),

known_values as (
    select distinct
        {%- for column in known_columns %}
        cast({{ column }} as {{ dbt.type_string() }}) as value_{{ loop.index }}{{ ',' if not loop.last }}
        {%- endfor %}
    from {{ known }}
    {% if known_where %}where {{ known_where }}{% endif %}
)

select
    '{{ vocabulary }}' as vocabulary,
    observed.*
from observed
where not exists (
    select 1
    from known_values
    where {% for column in columns %}known_values.value_{{ loop.index }} = observed.value_{{ loop.index }}{{ ' and ' if not loop.last }}{% endfor %}
)
{% endtest %}
