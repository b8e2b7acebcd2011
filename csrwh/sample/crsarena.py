"""Synthetic CRSArena-Dial (github.com/iai-group/crsarena-dial) in its upstream layout.

``data/crs_arena_dial_{open,closed}.json`` and ``data/votes_{open,closed}.csv``, byte format
copied from the real files.
Details: docs/internals.md#csrwh-sample-crsarena
"""

from __future__ import annotations

import csv
import io
import json
import random
from datetime import datetime, timedelta
from pathlib import Path

from csrwh.sample._common import (
    EN_ADJECTIVES,
    EN_NOUNS,
    make_rng,
    title_case,
    uuid4,
    weighted,
    write_text,
)

FOLDER = "crsarena-dial"

AGENTS = (
    "barcor_opendialkg",
    "barcor_redial",
    "chatgpt_opendialkg",
    "chatgpt_redial",
    "crbcrs_redial",
    "kbrd_opendialkg",
    "kbrd_redial",
    "unicrs_opendialkg",
    "unicrs_redial",
)

# environment -> (dialogues, votes, first session time, fractional seconds?)
ENVIRONMENTS = {
    "open": (30, 12, datetime(2024, 9, 8, 23, 1, 8), False),
    "closed": (25, 15, datetime(2024, 9, 13, 2, 57, 16, 1226), True),
}

GENRES = (
    "science fiction",
    "horror",
    "comedy",
    "romance",
    "thriller",
    "animated",
    "mystery",
    "documentary",
    "western",
    "fantasy",
    "action",
    "drama",
)


def _title(r: random.Random) -> str:
    roll = r.random()
    if roll < 0.4:
        return title_case(f"the {r.choice(EN_ADJECTIVES)} {r.choice(EN_NOUNS)}")
    if roll < 0.7:
        return title_case(f"{r.choice(EN_NOUNS)} of the {r.choice(EN_NOUNS)}")
    if roll < 0.85:
        return title_case(f"{r.choice(EN_NOUNS)} {r.randint(2, 4)}")
    return title_case(f"{r.choice(EN_NOUNS)} \u2013 {r.choice(EN_ADJECTIVES)} {r.choice(EN_NOUNS)}")


def _movie(r: random.Random) -> str:
    return f"{_title(r)} ({r.randint(1968, 2023)})"


def _user_text(r: random.Random, i: int, genre: str) -> str:
    if r.random() < 0.012:
        return ""
    if i == 0:
        text = r.choice(
            (
                f"Can you recommend a good {genre} movie?",
                f"Recommend me a {genre} film",
                f"hi, I want to watch something {genre}",
                f"I'm in the mood for a {genre} movie tonight. Any ideas?",
                "Hello",
            )
        )
    else:
        text = r.choice(
            (
                f"I liked {_title(r)}. Anything similar?",
                "Could you give me a longer list?",
                "Why did you recommend that one?",
                "I've already seen it. Something else?",
                f"What is {_title(r)} about?",
                f"Something more recent please, maybe {r.choice(GENRES)}",
                "thanks!",
                "that's not what I asked",
                "Who stars in it?",
            )
        )
    if r.random() < 0.08:  # typos, as real users make them
        pos = r.randrange(max(1, len(text)))
        text = text[:pos] + text[pos + 1 :]
    if r.random() < 0.1:
        text += " "
    return text


def _agent_text(r: random.Random, agent: str) -> str:
    if agent.startswith("chatgpt"):
        movies = [_movie(r) for _ in range(r.randint(1, 3))]
        return r.choice(
            (
                (
                    f"If you enjoy that, you might like {movies[0]}. It has a "
                    f"{r.choice(EN_ADJECTIVES)} story and a memorable soundtrack. "
                    f"Would you like more suggestions?"
                ),
                "Sure! Here are a few options: "
                + ", ".join(movies)
                + ". Let me know if any of these catch your interest.",
                (
                    f'{movies[0]} is often described as "{r.choice(EN_ADJECTIVES)}" by critics. '
                    f"I think it matches what you're looking for."
                ),
            )
        )
    roll = r.random()
    if roll < 0.35:
        return f"Have you seen {_movie(r)}?"
    if roll < 0.55:
        items = "".join(f"{k}: {_movie(r)}  \n" for k in range(1, r.randint(2, 4) + 1))
        return "I would recommend the following items:  \n" + items
    if roll < 0.75:
        return r.choice(
            (
                f"I like {_movie(r)}.",
                f"How about {_movie(r)}? It is a great one.",
                f"You should watch {_movie(r)}",
            )
        )
    return r.choice(
        (
            "I'm not sure what you mean.",
            "hi! what kind of movies do you like?",
            "I haven't seen that one.",
            "It's a good movie.",
            "Sorry, I don't know much about that.",
        )
    )


def _dialogue(r: random.Random, env: str, agent: str, user: str) -> dict:
    if env == "open":
        n = weighted(
            r,
            {
                2: 0.16,
                4: 0.11,
                6: 0.2,
                8: 0.18,
                10: 0.11,
                12: 0.08,
                14: 0.05,
                16: 0.03,
                18: 0.04,
                20: 0.01,
                22: 0.015,
                24: 0.015,
                5: 0.01,
            },
        )
    else:
        n = weighted(r, {10: 0.62, 12: 0.22, 14: 0.11, 16: 0.02, 18: 0.02, 11: 0.01})
    genre = r.choice(GENRES)
    turns = []
    for i in range(n):
        participant = "USER" if i % 2 == 0 else "AGENT"
        text = _user_text(r, i, genre) if participant == "USER" else _agent_text(r, agent)
        turns.append(
            {
                "participant": participant,
                "utterance": text,
                "utterance ID": f"{agent}-{user}_{i}",
            }
        )
    head = {
        "conversation ID": f"{agent}_{user}",
        "agent": {"id": agent, "type": "AGENT"},
        "user": {"id": user, "type": "USER"},
    }
    metadata = {"sentiment": weighted(r, {"frustrated": 0.8, "satisfied": 0.2})}
    if env == "open":
        return {**head, "conversation": turns, "metadata": metadata}
    return {**head, "metadata": metadata, "conversation": turns}


def _feedback(r: random.Random, crs1: str, crs2: str, vote: str, env: str) -> str:
    p_empty = 0.5 if env == "open" else 0.05
    if r.random() < p_empty:
        return ""
    better, worse = ("CRS1", "CRS2") if vote == crs1 else ("CRS2", "CRS1")
    if vote == "tie":
        text = r.choice(
            (
                "Both were about the same.",
                "Neither of them understood what I was asking for.",
                "Both gave decent recommendations, hard to choose.",
                "They both kept repeating the same movie.",
            )
        )
    else:
        text = r.choice(
            (
                f"{better} understood my request better.",
                f"{worse} did not answer my question at all.",
                f"{better} gave more relevant movies, {worse} was off topic.",
                f"{better} was more {r.choice(EN_ADJECTIVES)} in its answers.",
            )
        )
    roll = r.random()
    if roll < 0.15:
        said = r.choice(("I like it", "Have you seen it?", "I am not sure"))
        text += f' {worse if vote != "tie" else "CRS2"} kept saying "{said}".'
    elif roll < 0.25:
        text += "\n" + r.choice(
            ("Also it was slow.", "It ignored one of my questions.", "Overall OK.")
        )
    if r.random() < 0.1:
        text += " "
    return text


def _environment(r: random.Random, env: str, scale: int) -> tuple[str, str]:
    n_dialogues, n_votes, t0, fractional = ENVIRONMENTS[env]
    n_dialogues *= scale
    n_votes *= scale
    dialogues: list[dict] = []
    votes: list[list[str]] = []
    t = t0
    n_unlinked = max(1, n_votes // 8)
    unlinked = set(r.sample(range(n_votes), n_unlinked))
    for v in range(n_votes):
        user = uuid4(r)
        crs1, crs2 = r.sample(AGENTS, 2)
        vote = weighted(r, {crs1: 0.32, crs2: 0.33, "tie": 0.35})
        t += timedelta(seconds=r.randint(40, 5400), microseconds=r.randint(0, 999_999))
        session = t.strftime("%Y-%m-%d %H:%M:%S.%f" if fractional else "%Y-%m-%d %H:%M:%S")
        votes.append([session, user, crs1, crs2, vote, _feedback(r, crs1, crs2, vote, env)])
        if v in unlinked:
            continue
        for agent in (crs1, crs2):
            if len(dialogues) < n_dialogues:
                dialogues.append(_dialogue(r, env, agent, user))
    while len(dialogues) < n_dialogues:  # users who chatted but did not vote
        user = uuid4(r)
        for agent in r.sample(AGENTS, min(r.randint(1, 2), n_dialogues - len(dialogues))):
            dialogues.append(_dialogue(r, env, agent, user))

    # guarantee the upstream quirks: a multi-line feedback and an exact duplicate vote
    k = r.randrange(len(votes))
    if not any("\n" in row[5] for row in votes):
        votes[k][5] = (votes[k][5] or "Both were fine.") + "\nThe second one was a bit slow."
    if not any('"' in row[5] for row in votes):
        j = (k + 1) % len(votes)
        votes[j][5] = (votes[j][5] + " " if votes[j][5] else "") + 'It said "I don\'t know" twice.'
    d = r.randrange(len(votes))
    votes.insert(d + 1, list(votes[d]))

    dialogues.sort(key=lambda x: (x["user"]["id"], x["agent"]["id"]))
    buf = io.StringIO(newline="")
    writer = csv.writer(buf)
    writer.writerow(["session_id", "user_id", "crs1", "crs2", "vote", "feedback"])
    writer.writerows(votes)
    return json.dumps(dialogues, indent=4), buf.getvalue()


def write(folder: Path, scale: int, seed: int) -> list[str]:
    """Write the CRSArena-Dial files under ``folder``; return their relative POSIX paths."""
    written = []
    for env in ("open", "closed"):
        r = make_rng(seed, FOLDER, env)
        dialogues, votes = _environment(r, env, scale)
        for rel, text in (
            (f"data/crs_arena_dial_{env}.json", dialogues),
            (f"data/votes_{env}.csv", votes),
        ):
            write_text(folder / rel, text)
            written.append(rel)
    return sorted(written)


__all__ = ["AGENTS", "FOLDER", "write"]
