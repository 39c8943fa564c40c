"""The one reader prompt every system's context goes through.

Why: published memory numbers differ as much by reader prompt as by memory.
Here graphmem, Graphiti, Mem0, full context, RAG and the filesystem agent all
hand their context to the same prompt, with the question and the date it is
asked; the prompt version, temperature and seed go into the run's conditions.

Example:
    >>> msgs = render("Ann moved to Oslo in 2022.", "Where does Ann live?", None)
    >>> msgs[0]["role"], "Where does Ann live?" in msgs[1]["content"]
    ('system', True)
"""

from __future__ import annotations

from datetime import datetime

PROMPT_VERSION = "reader-v1"

SYSTEM = (
    "You answer questions about a user's past conversations using only the memory "
    "context you are given. Be brief: answer with the fact itself (a name, a date, a "
    "number, a short phrase), not a sentence about it. Resolve relative dates "
    "(\"last week\", \"two months ago\") against the date of the conversation they "
    "were said in, and give absolute dates. If the context does not contain the "
    "answer, say \"The conversations never mention this.\""
)

USER_TEMPLATE = "Memory context:\n{context}\n\nThe question is asked on {date}.\nQuestion: {question}\nAnswer:"


def render(context: str, question: str, question_time: datetime | None) -> list[dict[str, str]]:
    """The reader's chat messages for one question."""
    date = question_time.strftime("%d %B %Y") if question_time is not None else "an unknown date"
    text = USER_TEMPLATE.format(context=context.strip() or "(empty)", date=date, question=question.strip())
    return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": text}]


__all__ = ["PROMPT_VERSION", "SYSTEM", "render"]
