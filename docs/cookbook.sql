-- name: How long are user utterances in each corpus? (words; each CJK character counts as one word)
select
    conversations.corpus,
    conversations.language,
    count(*) as user_turns,
    round(avg(turns.n_words), 1) as mean_words,
    median(turns.n_words) as median_words
from turns
inner join conversations on turns.conversation_id = conversations.conversation_id
where turns.role = 'user'
group by conversations.corpus, conversations.language
order by mean_words desc;

-- name: Which intent families does each corpus label? (primary labels, share within corpus)
with family_counts as (
    select corpus, intent_family, count(*) as labels
    from intents
    where is_primary
    group by corpus, intent_family
)
select
    corpus,
    intent_family,
    labels,
    round(100.0 * labels / sum(labels) over (partition by corpus), 1) as pct_of_corpus
from family_counts
order by corpus, labels desc;

-- name: Are longer CRSArena dialogues more often satisfying? (share of satisfied users by user turns)
select
    least(n_user_turns, 8) as user_turns_8_or_more,
    count(*) as dialogues,
    round(avg(user_satisfaction), 3) as satisfied_share
from conversations
where corpus = 'crsarena'
group by user_turns_8_or_more
order by user_turns_8_or_more;

-- name: How do conversation-level ratings compare across corpora? (mean normalised to [0,1])
select
    corpus,
    aspect,
    count(*) as ratings,
    round(avg(value_normalized), 3) as mean_normalized
from ratings
where turn_index is null and item_id is null
group by corpus, aspect
order by corpus, aspect;

-- name: Which conversational recommender wins the CRS Arena? (global leaderboard)
select
    system_id,
    battles,
    round(win_rate, 3) as win_rate,
    round(elo) as elo,
    elo_rank,
    round(bt_strength) as bradley_terry,
    round(bt_ci_low) as bt_ci_low,
    round(bt_ci_high) as bt_ci_high,
    round(satisfaction_rate, 3) as satisfied_share
from crs_leaderboard
where environment = 'global'
order by elo desc, system_id;

-- name: How much do annotators agree?
select corpus, subject, measure, round(value, 3) as value, n_units
from annotator_agreement
order by corpus, subject;

-- name: How are CoSRec relevance grades distributed per judgment kind?
select
    judgment_kind,
    grade,
    count(*) as judgments,
    count(distinct topic_id) as topics
from relevance_judgments
where corpus = 'cosrec'
group by judgment_kind, grade
order by judgment_kind, grade;

-- name: Does RecLLMSim's practical usefulness rating change with conversation length?
select
    conversations.n_user_turns,
    count(*) as conversations,
    round(avg(ratings.value), 3) as mean_rating_0_to_2
from ratings
inner join conversations on ratings.conversation_id = conversations.conversation_id
where ratings.corpus = 'recllmsim' and ratings.aspect = 'Practical Usefulness'
group by conversations.n_user_turns
order by conversations.n_user_turns;
