"""Input limits of the pure parsers (no settings here: parsers do no I/O and read no
environment). Bodies themselves are capped before they are stored, by the fetcher
(settings.http_max_body_bytes); these bound the work one part of a page may cost.
docs/reliability.md lists every limit and the drill that proves it."""

# A JSON-LD block longer than this is skipped with an issue (`jsonld_too_large`): real
# JobPosting blocks are tens of kilobytes; a 50 MB block is an attack or an accident.
MAX_JSONLD_BLOCK_CHARS = 5 * 1024 * 1024
