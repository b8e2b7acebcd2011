{#-
    dbt's cross-database split_part on Spark (a root-project override: dbt searches this project
    before its own packages for the `dbt` namespace). dbt-spark's version splits with a regular
    expression and escapes the delimiter with a backslash, which under
    spark.sql.parser.escapedStringLiterals (the profile's setting) stays two characters, so
    `split_part(conversation_id, ':', 1)` returned the whole id: the `corpus` column of intents
    and intent_consensus differed from DuckDB in every row once the own-corpus models let those
    marts build on Spark. Spark 4's own split_part takes the delimiter literally and counts
    parts from 1 (negative from the end), as DuckDB's does.
-#}
{% macro spark__split_part(string_text, delimiter_text, part_number) -%}
    split_part({{ string_text }}, {{ delimiter_text }}, {{ part_number }})
{%- endmacro %}
