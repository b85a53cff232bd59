"""The fault suite: drills anyone can run against real processes.

`python -m chaos` (`make chaos`) runs the long form and prints ONE line of JSON;
the pytest tests under tests/chaos/ run the short form inside `make test`. Each
module is one family of drills (see docs/reliability.md for what each proves):

- chaos.ssrf: every address form refused with 0 requests sent, as a URL asked
  for and as a redirect target, over HTTP and through the browser;
- chaos.bad_input: oversized, compressed, mis-encoded and hostile bodies meet a
  recorded rejection, never a crash or a hang;
- chaos.fuzz: hypothesis-driven fuzzing of every parser and the location normalizer;
- chaos.lifecycle: the chaos run of the lifecycle (docs/reliability.md §2), grown with
  `postings_lost` and `missed_closes`.
"""
