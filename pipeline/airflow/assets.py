"""The Airflow Assets that chain the DAGs by data instead of by clock.

Each source DAG's `check` task (its last phase: the source's postings are parsed and,
where gone, closed) updates `jobharbor://postings/<source>`; the serving sync runs when
any of them updates, and its `sync` task updates `jobharbor://serving/jobs`, which the
freshness report runs on. `jobharbor` is a scheme of our own: Airflow reserves
`airflow`, and has no URI normalizer for an unknown scheme, so the URI is kept as
written.
"""

from __future__ import annotations

from airflow.sdk import Asset

SCHEME = "jobharbor"
SERVING_JOBS = Asset(f"{SCHEME}://serving/jobs")


def postings(source: str) -> Asset:
    """The source's postings in the authoritative database, as a source DAG leaves them."""
    return Asset(f"{SCHEME}://postings/{source}")
