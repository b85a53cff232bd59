"""Crawling: the board queue, pacing, robots, schedule, HTTP, validation and platform adapters."""
