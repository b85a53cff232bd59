"""Test-only kill points: the crash drills (chaos/crash.py) SIGKILL a phase at a named
state boundary to prove a rerun recovers from it.

`JOBHARBOR_TEST_KILL_AT=<name>[:<n>]` kills the process the n-th time (default: the
first) it reaches `kill_point(<name>)`. Unset (always, outside the drills), a kill
point is one dictionary lookup. The names are the state boundaries the drills cover
(docs/reliability.md §1):

    raw:after_intent     the raw object's row is `pending`, nothing uploaded yet
    raw:after_upload     the object is in the store, its row still `pending`
    discover:mid_listing a multi-page listing with some pages read and stored
    parse:mid_batch      some postings' parse results committed, the rest not
    check:mid_batch      some direct-check verdicts recorded, the rest not
    sync:before_verify   the serving diff applied, not yet verified (not committed)
    sync:after_verify    verified, not yet committed
    enrich:mid_batch     earlier batches' results stored; this batch answered, not stored
    backfill:mid_apply   a re-parse batch committed, not yet journaled
    cleanup:after_intent a raw object's delete intent recorded, the object not deleted
    cleanup:after_delete the object deleted from the store, its row not yet `deleted`
"""

from __future__ import annotations

import os
import signal
from collections import Counter

KILL_ENV = "JOBHARBOR_TEST_KILL_AT"
_hits: Counter[str] = Counter()


def kill_point(name: str) -> None:
    spec = os.environ.get(KILL_ENV)
    if not spec:
        return
    # Names hold one colon (`raw:after_intent`); the count follows a second one.
    target, _, nth = spec.rpartition(":") if spec.count(":") > 1 else (spec, "", "")
    if target != name:
        return
    _hits[name] += 1
    if _hits[name] >= int(nth or 1):
        os.kill(os.getpid(), signal.SIGKILL)
