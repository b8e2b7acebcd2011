{#-
    Spark override of dbt's cross-database split_part (dbt.split_part), which the marts call.
    dbt-spark's own spark__split_part splits on a regular expression it escapes with '\\':
    under spark.sql.parser.escapedStringLiterals (the profile's setting) that literal is two
    backslashes, so a delimiter such as ':' or ' and ' never matched and the whole text came
    back (behaviour_labels.corpus was the whole conversation id on Spark). Spark's own
    split_part takes the delimiter as text and counts parts from 1 (negative: from the end);
    past the last part it gives '' where dbt-duckdb's (string_split(...)[n]) gives NULL, so
    the parts are counted first (occurrences of the delimiter, plus one).
-#}
{% macro spark__split_part(string_text, delimiter_text, part_number) -%}
    case
        when
            abs({{ part_number }})
            <= 1 + (length({{ string_text }}) - length(replace({{ string_text }}, {{ delimiter_text }}, '')))
            / length({{ delimiter_text }})
            then split_part({{ string_text }}, {{ delimiter_text }}, {{ part_number }})
    end
{%- endmacro %}
