{#- One row per user of every corpus (profiles, keywords, preferences, survey answers). -#}

with

unioned as (
    {{ conformed_union(
        relations=[
            ref('int_cosrec__users_conformed'),
            ref('int_crsarena__users_conformed'),
            ref('int_convsearch__users_conformed'),
            ref('int_recllmsim__users_conformed'),
            ref('int_recoreact__users_conformed'),
            ref('int_custom__users_conformed'),
        ],
        columns=[
            'user_id', 'corpus', 'source_user_id', 'subset', 'profile_text', 'keywords', 'attributes',
        ],
    ) }}
)

select * from unioned
