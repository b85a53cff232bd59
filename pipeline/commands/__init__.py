"""Operator commands behind the CLI (demo, status, parse-file) that compose the other packages."""
