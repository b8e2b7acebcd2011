{#-
    The own-corpus format's ratings (docs/ADDING_A_CORPUS.md), in one shape whatever way a record
    writes them: {"<aspect>": number} or the list `csrwh export` writes,
    [{"aspect", "value", "raw_value", "rater_id", "rater_kind", "comment"}].
-#}

{#- from_json's structure of the list form (value stays JSON: a number, or null). -#}
{% macro custom_rating_list_structure() -%}
    [{"aspect": "VARCHAR", "value": "JSON", "raw_value": "VARCHAR", "rater_id": "VARCHAR", "rater_kind": "VARCHAR", "comment": "VARCHAR"}]
{%- endmacro %}

{#- One rating entry: aspect, the rating as JSON, and the rater, raw text and comment when given. -#}
{% macro custom_rating_entry(aspect, rating, raw_value="null", rater_id="null", rater_kind="null", comment="null") -%}
    {
        'aspect': {{ aspect }},
        'rating': cast({{ rating }} as json),
        'raw_value': cast({{ raw_value }} as varchar),
        'rater_id': cast({{ rater_id }} as varchar),
        'rater_kind': cast({{ rater_kind }} as varchar),
        'comment': cast({{ comment }} as varchar)
    }
{%- endmacro %}
