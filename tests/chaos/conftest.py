"""The engine fixtures (an App from a sources file written by the test) for the drills."""

from tests.engine.conftest import make_app  # noqa: F401
