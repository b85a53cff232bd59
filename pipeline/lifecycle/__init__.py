"""Posting lifecycle: the pure evidence rules, identity, and the SQL that records their verdicts."""
