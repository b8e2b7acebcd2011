{#-
    The file and record of a row of `model`, as one SQL text expression, for a failed test's
    rows to name where the bad value came from: `<source_path> line <n>` (JSONL, CSV), else
    `<source_path> record <i>` (the 0-based position in the file), else `<source_path>`; none when
    the model carries no `source_path` (read at run time; none while dbt parses, and for a test
    with a `where` config, whose `model` is a subquery's text).
-#}
{% macro record_location(model) %}
    {%- if not execute or model is string %}{{ return(none) }}{% endif %}
    {%- set names = adapter.get_columns_in_relation(model) | map(attribute="name") | map("lower") | list %}
    {%- if "source_path" not in names %}{{ return(none) }}{% endif %}
    {%- set places = [] %}
    {%- for column, word in [("line_number", "line"), ("record_index", "record"), ("source_record_index", "record")] %}
        {%- if column in names %}
            {%- do places.append("' " ~ word ~ " ' || cast(" ~ column ~ " as " ~ dbt.type_string() ~ ")") %}
        {%- endif %}
    {%- endfor %}
    {%- do places.append("''") %}
    {{ return("source_path || coalesce(" ~ places | join(", ") ~ ")") }}
{% endmacro %}
