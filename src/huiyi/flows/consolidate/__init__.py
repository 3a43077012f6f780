"""Flow 3, consolidate: one step per module, run in order by :mod:`~huiyi.flows.consolidate.run`.

- ``run``: the orchestrator: one scope, five steps, a report; the scheduler's entry.
- ``state``: the scope as consolidation sees it, with its pending writes.
- ``entities``: step a, merge duplicate entities.
- ``supersede``: step b, a newer contradicting fact closes the older one.
- ``describe``: step c, merge the descriptions a subject accumulated.
- ``links``: step d, discover links between events.
- ``strength``: step e, strength, decay and forgetting.
- ``report``: what one consolidation changed, and why.
- ``llm``: asking an LLM during consolidation.

The settings live in :mod:`huiyi.config.consolidate`.
"""
