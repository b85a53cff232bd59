"""Enrichment: requirements and skills from an LLM, every value backed by the posting's
own words.

Pure parts: `text` (normalisation, offsets), `catalog` (skill catalogue and matcher),
`rules` (the model-free baseline), `evidence` (the checker), `policy` (error classes,
backoff, cooldowns), `schema` (the response schema and pydantic models).
I/O parts: `gemini` / `openai_compat` (providers), `store` (queue, budgets and results
in the `enrich.*` tables). `pipeline/phases/enrich.py` runs one pass.
"""
