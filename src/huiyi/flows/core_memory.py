"""Core memory per caller: which core blocks a conversation sees, and which of them a tool may change.

Three owners (seed 002 §3.6, MemGPT's core memory):
- a Markdown block that names no agent is shared by every agent: people edit it, tools never do;
- a block that names its agent (``agent:`` in its front matter) is that agent's persona, task…:
  tools may change it only when ``context.tools_edit_agent_blocks`` allows;
- a person block (``context.person_blocks``, ``human`` by default) belongs to one person of one agent
  and lives in the store; a file block of the same label is only its starting text and is never
  written by a tool. So what agent A learns from p1 never reaches p2 or another agent's persons.
"""

from __future__ import annotations

from collections.abc import Sequence

from huiyi.errors import InvalidInput, NotConfigured, NotFound, ReadOnly
from huiyi.flows.core_blocks import CoreBlocks, Edit, appending, block_text, check_limit, replacing
from huiyi.model import CoreBlock
from huiyi.store.base import Store

_ATTEMPTS = 8  # compare-and-set retries when writers race on one person's block


class CoreMemory:
    """The core blocks of every agent and person of one store. Blocking; call it from a thread."""

    def __init__(
        self, files: CoreBlocks | None, store: Store, person_labels: Sequence[str], edit_agent_blocks: bool
    ) -> None:
        self.files = files
        self.store = store
        self.person_labels = tuple(person_labels)
        self.edit_agent_blocks = edit_agent_blocks

    def blocks(self, agent: str, person: str | None) -> list[CoreBlock]:
        """What the prompt of ``agent`` talking with ``person`` holds, in the blocks' order.

        A person block shows that person's own text; with no person (a group turn with no speaker
        named) person blocks are left out rather than shown from their template.
        """
        own = self.store.person_blocks(agent, person) if person else {}
        out: list[CoreBlock] = []
        for block in self.files.blocks(agent) if self.files is not None else []:
            if block.label not in self.person_labels:
                out.append(block)
            elif person:
                text = own.pop(block.label, block.text)
                out.append(block.model_copy(update={"text": text}))
        out += [CoreBlock(label=label, text=text) for label, text in own.items() if label in self.person_labels]
        return [block for block in out if block.text.strip()]

    def editable(self, agent: str, person: str | None) -> list[str]:
        """The labels a tool acting for ``agent`` and ``person`` may change."""
        labels = list(self.person_labels) if person else []
        if self.files is not None and self.edit_agent_blocks:
            for block in self.files.blocks(agent):
                if block.label not in labels and not self.files.is_shared(block.label, agent):
                    labels.append(block.label)
        return labels

    def append(self, label: str, text: str, *, agent: str, person: str | None) -> CoreBlock:
        return self._edit(label, agent, person, appending(label, text))

    def replace(self, label: str, old: str, new: str, *, agent: str, person: str | None) -> CoreBlock:
        return self._edit(label, agent, person, replacing(label, old, new))

    def _edit(self, label: str, agent: str, person: str | None, change: Edit) -> CoreBlock:
        if label in self.person_labels:
            if not person:
                raise InvalidInput(f"core block {label!r} belongs to one person; this conversation names none")
            return self._edit_person(label, agent, person, change)
        files = self._files()
        files.get(label, agent)  # NotFound names the labels there are
        if files.is_shared(label, agent):
            raise ReadOnly(f"core block {label!r} is shared by every agent; people edit it, tools cannot")
        if not self.edit_agent_blocks:
            raise ReadOnly(
                f"core block {label!r} is {agent}'s own and read-only to tools (context.tools_edit_agent_blocks)"
            )
        return files.edit(label, agent, change)

    def _edit_person(self, label: str, agent: str, person: str, change: Edit) -> CoreBlock:
        template = self._template(label, agent)
        limit = self.files.limit(label, agent) if template is not None and self.files is not None else None
        for _ in range(_ATTEMPTS):
            stored = self.store.person_blocks(agent, person).get(label)
            before = stored if stored is not None else (template.text if template is not None else "")
            after = block_text(change(before, "\n"))
            check_limit(label, before, after, limit)
            if self.store.set_person_block(agent, person, label, after, stored):
                return CoreBlock(label=label, text=after, meta=template.meta if template is not None else {})
        raise InvalidInput(f"core block {label!r} kept changing while being edited; try again")

    def _template(self, label: str, agent: str) -> CoreBlock | None:
        if self.files is None:
            return None
        try:
            return self.files.get(label, agent)
        except NotFound:
            return None

    def _files(self) -> CoreBlocks:
        if self.files is None:
            raise NotConfigured("no core-block folder is configured (context.core_blocks)")
        return self.files
