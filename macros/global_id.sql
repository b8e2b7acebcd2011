{#-
    Global id '<corpus>:<source id>' (see docs/ARCHITECTURE.md), via dbt's cross-database
    concat and string cast.
-#}
{% macro global_id(corpus, source_id) -%}
    {{ dbt.concat(["'" ~ corpus ~ ":'", dbt.cast(source_id, api.Column.translate_type("string"))]) }}
{%- endmacro %}
