"""Remote work: "yes", "hybrid" or "unknown" - never a guessed "no".

Many platforms report "onsite" by default, so neither an onsite word nor the
absence of a remote word is evidence that a job cannot be done remotely.
"""

from __future__ import annotations

from collections.abc import Collection

from .model import REMOTE_VALUES
from .vocab import Noise


def check_hint(hint: str | None) -> str | None:
    if hint is None:
        return None
    if hint not in REMOTE_VALUES:
        raise ValueError(f"remote_hint must be one of {REMOTE_VALUES} or None, not {hint!r}")
    return hint


def remote_status(modes: Collection[Noise], hint: str | None) -> str:
    """The text's own words win over the platform's flag; the flag fills the gap.

    A remote option anywhere in the text makes the job remote ("Remote or
    Hybrid - NYC"); a hybrid word makes it hybrid even when the platform flags
    it remote, because platforms set that flag for hybrid jobs too. An explicit
    onsite word says the platform flag is wrong, but not that remote is ruled
    out, so it gives "unknown".
    """
    if not modes:
        return hint or "unknown"
    if Noise.REMOTE in modes:
        return "yes"
    if Noise.HYBRID in modes:
        return "hybrid"
    if Noise.ONSITE in modes:
        return "unknown"
    return hint or "unknown"
