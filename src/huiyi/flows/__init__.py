"""The flows of DESIGN.md: what happens to memories between a message coming in and a recall.

- ``ingest``: messages in, stored at once, indexed as chunks (flow 1).
- ``extract/``: a fold of working memory becomes events, facts and entities, with or without an LLM
  (flow 2): ``fold``, ``worker``, ``entities``, ``llm`` (+ ``schema``, ``answer``), ``rules/``.
- ``consolidate/``: one scope tidied periodically, one step per module (flow 3); settings and the
  forgetting numbers in ``huiyi.config.consolidate`` and ``huiyi.config.forget``.
- ``summarize/``: daily and global summaries, personalities, diary and profiles; settings in
  ``huiyi.config.summarize``.
- ``core_blocks``: the Markdown core blocks, always in the prompt; ``core_memory``: whose blocks a
  conversation sees and which a tool may change.

Flows import from below only: the model, the config, ``huiyi.strength`` (the seeds' formulas),
``huiyi.prompts`` (the prompt reader), ``huiyi.text``, the providers and the store.
"""
