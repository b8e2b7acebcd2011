{#-
    Spark implementation of parse_json_object_entries (macros/parse_json_object_entries.sql):
    from_json keeps the document's key order; values in the form macros/engine/json_text.sql
    documents; NULL for NULL or non-object input.
-#}
{% macro spark__parse_json_object_entries(json_object) -%}
    map_entries(from_json({{ json_object }}, 'map<string,string>'))
{%- endmacro %}
