-- Every turn has its Python text measures (int_turn_text_measures), and they agree with the
-- SQL ones in turns:
-- * text without Han characters is never segmented, and its str.split() word count equals
--   n_words (count_words; both split on Python's whitespace set);
-- * n_tokens is 0 exactly when the text is empty (any non-empty text is at least one token);
-- * n_tokens_translation is NULL exactly when text_translation is.
-- Seen failing in tests/integration/test_text_measures_build.py.
with

measures as (
    select
        turns.*,
        text_measures.is_segmented,
        -- count_han_chars, counted once in int_turn_text_counts (not again over every text)
        text_counts.n_han_chars > 0 as has_han
    from {{ ref('turns') }} as turns
    left join {{ ref('int_turn_text_measures') }} as text_measures
        on turns.conversation_id = text_measures.conversation_id
        and turns.turn_index = text_measures.turn_index
    left join {{ ref('int_turn_text_counts') }} as text_counts
        on turns.conversation_id = text_counts.conversation_id
        and turns.turn_index = text_counts.turn_index
)

select
    turn_id,
    n_words,
    n_words_segmented,
    n_tokens,
    n_tokens_translation,
    is_segmented,
    has_han
from measures
where
    is_segmented is null
    or (not has_han and (is_segmented or n_words_segmented <> n_words))
    or ((coalesce(text, '') = '') <> (n_tokens = 0))
    or ((text_translation is null) <> (n_tokens_translation is null))
