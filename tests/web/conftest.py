"""The web app's tests read the published search set of the serving tests: the same
rows, the web role's connection and a real server on a socket (tests/serving/conftest.py)."""

from tests.serving.conftest import (  # noqa: F401
    published,
    published_web,
    seed,
    seeded,
    serving,
    web,
    web_conn,
    web_url,
)
