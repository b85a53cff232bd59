"""The project's labelled evaluation set (see docs/enrichment.md, "Evaluation").

`cases.jsonl`: postings written by the project from the sandbox's generated world
(its titles, companies, locations and skills) with requirement paragraphs in English
and Vietnamese, each with gold values and gold evidence; `generate.py` made it (run it
again only to change the set on purpose). `real.yaml`: references to captured real
postings in the shared fixtures (file + posting id) with hand-made gold values; the
texts themselves are never copied here, and are skipped, visibly, when absent.
"""
