{#- One row per user of every corpus (profiles, keywords, preferences, survey answers). -#}

with

unioned as (
    {{ conformed_union(
        relations=conformed_relations('users'),
        columns=[
            'user_id', 'corpus', 'source_user_id', 'subset', 'profile_text', 'keywords', 'attributes',
        ],
    ) }}
)

select * from unioned
