{#-
    Generic test for an OPEN vocabulary (docs/ARCHITECTURE.md, "Open and closed vocabularies"):
    returns one row per distinct value (combination of `columns`, SQL expressions) of `model`
    that `known` (a seed; `known_columns` in the same order, `known_where` to filter it) does
    not list, with how many rows carry it. Severity warn: a new value lands and publishes;
    the build prints one warning line per returned row and records it in dq_results.
    `vocabulary` names the vocabulary in those messages.
    `scope` (default 0): the number of leading `columns` that name who owns the vocabulary (a
    corpus, a label scheme). Values are then checked only under an owner `known` lists at all:
    an owner it does not list (a custom corpus, which names its own subsets, rating aspects and
    label schemes) keeps its own vocabulary, and a corpus joins the check by listing its values
    in its own seed -- no corpus is named in the shared marts' tests.
-#}
{% test open_vocabulary(model, columns, known, vocabulary, known_columns=none, known_where=none, scope=0) %}
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
{%- if scope > 0 %}
and exists (
    select 1
    from known_values
    where {% for index in range(1, scope + 1) %}known_values.value_{{ index }} = observed.value_{{ index }}{{ ' and ' if not loop.last }}{% endfor %}
)
{%- endif %}
{% endtest %}
