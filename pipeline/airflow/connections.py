"""Airflow connections, looked up only inside a task or callback (never at parse time)."""

from __future__ import annotations

from typing import Any


def airflow_connection(conn_id: str) -> Any | None:
    """The connection, or None when it is not defined (the environment decides).
    Any other failure (a secrets backend down) propagates: silently falling back could
    point a task at another database, or an alert nowhere."""
    from airflow.exceptions import AirflowNotFoundException
    from airflow.sdk import BaseHook

    try:
        return BaseHook.get_connection(conn_id)
    except AirflowNotFoundException:
        return None
