{#-
    Which role's turns each label scheme labels, one row per (scheme, role): the union of
    seeds/<id>/<id>__label_schemes.csv and of the corpora's own models
    int_<id>__label_schemes (schemes a seed cannot list, e.g. each own corpus' 'custom:<name>').
-#}

{%- set columns = [
    ['corpus', 'string'], ['label_scheme', 'string'], ['labelled_role', 'string'],
    ['description', 'string'],
] %}

with

declared_in_seeds as (
    {{ corpus_lookup_union('label_schemes', columns) }}
),

declared_in_models as (
    {{ corpus_lookup_models_union('label_schemes', columns) }}
),

final as (
    select * from declared_in_seeds
    union all
    select * from declared_in_models
)

select * from final
