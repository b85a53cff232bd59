"""The prompt (versioned: a change re-keys every result through PROMPT_VERSION)."""

from __future__ import annotations

from collections.abc import Sequence

SYSTEM = """\
You extract job requirements from job postings. For every field, first copy the exact
words of the posting that state it into "evidence" (verbatim, a short phrase, no
paraphrase, no ellipsis), then give "value". If the posting does not state a field,
give null for both. Never guess: missing stays null.
Fields: experience_min / experience_max (whole years of experience asked for, 0-40);
seniority; work_mode; employment_type; education (the minimum degree asked for);
skills_required and skills_preferred (each skill the posting names, with its name as
written; preferred = "nice to have", "a plus", "ưu tiên"). Postings may be in
English or Vietnamese. Answer one entry per posting, with its posting_id."""


def build_prompt(postings: Sequence[tuple[str, str]], reask_error: str | None = None) -> str:
    """`postings` as (posting_id, normalised text)."""
    parts = [f'<posting id="{pid}">\n{text}\n</posting>' for pid, text in postings]
    if reask_error:
        parts.append(
            "Your previous answer for this posting was refused: "
            f"{reask_error}\nAnswer again, as JSON that follows the schema exactly."
        )
    return "\n\n".join(parts)


def estimate_tokens(system: str, prompt: str, max_output_tokens: int) -> int:
    """A deliberately high estimate reserved before the call (reconciled after it):
    about 3 characters per token for input, plus the whole output allowance."""
    return (len(system) + len(prompt)) // 3 + 1 + max_output_tokens
