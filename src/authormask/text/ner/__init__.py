"""The packaged named-entity recogniser (``en_core_web_md``'s ``ner`` component) run without
spaCy: its tokenizer's rules in Python, its network in numpy, read from a file prepared once
from the pipeline (issue 50)."""
