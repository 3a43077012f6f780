"""Import and export formats: files read into a checked plan, a plan written into a store, a scope exported.

Below the faces, so the command line and the HTTP service share them. What ``import`` reads:

- the probe format of the evaluation README (one JSON object with ``cases``): each case's messages and
  memories (its probes are questions, not data, and are left out). A space with one user speaker is a
  private chat with that person, any other a group. When ids repeat across cases they are prefixed
  with the case id, since a store keeps one message per id.
- JSON lines, one record a line. A message is ``{"agent", "person" | "space", "speaker", "role",
  "text", "time", "id"}`` (``agent``, ``person`` and ``space`` may come from the caller instead).
  ``export`` writes the same message lines with ``"type": "message"``, plus ``"type": "memory"`` lines
  (one memory of the scope: kind, text, time, importance, keywords, sources, data…), a ``"type":
  "person"`` line with the person's name and aliases, ``"type": "block"`` lines (the person's own core
  blocks), a ``"type": "working"`` line (the first message of the chat's working memory) and an
  ``"type": "export"`` header (version 3; versions 1 and 2 still import).

Memories carry their state (strength, access count, feedback, when written). Message chunks are rebuilt
by ``import`` from the messages; their lines carry only their state.
"""

from huiyi.formats.apply import Counts, apply_plan
from huiyi.formats.export import export_lines, scope_label, write_lines
from huiyi.formats.plan import Batch, MemoryLine, MessageLine, PersonLine, Plan
from huiyi.formats.read import read_file, read_text

__all__ = [
    "Batch",
    "Counts",
    "MemoryLine",
    "MessageLine",
    "PersonLine",
    "Plan",
    "apply_plan",
    "export_lines",
    "read_file",
    "read_text",
    "scope_label",
    "write_lines",
]
