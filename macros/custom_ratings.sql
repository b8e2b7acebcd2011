{#-
    The own-corpus format's ratings (docs/ADDING_A_CORPUS.md), in one shape whatever way a record
    writes them: {"<aspect>": number} or the list `csrwh export` writes,
    [{"aspect", "value", "raw_value", "rater_id", "rater_kind", "comment"}]. The rating stays
    JSON: a JSON value on DuckDB, its text on Spark (a number's digits; the form
    macros/engine/json_text.sql documents).
-#}

{#- from_json's structure of the list form (value stays JSON: a number, or null). -#}
{% macro custom_rating_list_structure() -%}
    {{ return(adapter.dispatch('custom_rating_list_structure', 'csrwh')()) }}
{%- endmacro %}

{% macro default__custom_rating_list_structure() -%}
    [{"aspect": "VARCHAR", "value": "JSON", "raw_value": "VARCHAR", "rater_id": "VARCHAR", "rater_kind": "VARCHAR", "comment": "VARCHAR"}]
{%- endmacro %}

{% macro spark__custom_rating_list_structure() -%}
    array<struct<aspect: string, value: string, raw_value: string, rater_id: string, rater_kind: string, comment: string>>
{%- endmacro %}

{#- One rating entry: aspect, the rating as JSON, and the rater, raw text and comment when given. -#}
{% macro custom_rating_entry(aspect, rating, raw_value="null", rater_id="null", rater_kind="null", comment="null") -%}
    {{ return(adapter.dispatch('custom_rating_entry', 'csrwh')(aspect, rating, raw_value, rater_id, rater_kind, comment)) }}
{%- endmacro %}

{% macro default__custom_rating_entry(aspect, rating, raw_value, rater_id, rater_kind, comment) -%}
    {
        'aspect': {{ aspect }},
        'rating': cast({{ rating }} as json),
        'raw_value': cast({{ raw_value }} as varchar),
        'rater_id': cast({{ rater_id }} as varchar),
        'rater_kind': cast({{ rater_kind }} as varchar),
        'comment': cast({{ comment }} as varchar)
    }
{%- endmacro %}

{% macro spark__custom_rating_entry(aspect, rating, raw_value, rater_id, rater_kind, comment) -%}
    named_struct(
        'aspect', cast({{ aspect }} as string),
        'rating', cast({{ rating }} as string),
        'raw_value', cast({{ raw_value }} as string),
        'rater_id', cast({{ rater_id }} as string),
        'rater_kind', cast({{ rater_kind }} as string),
        'comment', cast({{ comment }} as string)
    )
{%- endmacro %}
