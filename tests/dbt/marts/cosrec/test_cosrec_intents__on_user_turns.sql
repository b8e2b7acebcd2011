{#-
    CoSRec's rule on the published marts: every CoSRec intent sits on a user turn of `turns`
    (its conformed model has the same test on its own turns). Kept with the corpus, not in the
    shared marts' yml. Returns the offending rows.
-#}
{{ test_on_turns_with_role(
    model="(select * from " ~ ref('intents') ~ " where corpus = 'cosrec')",
    turns=ref('turns'),
    role='user',
) }}
