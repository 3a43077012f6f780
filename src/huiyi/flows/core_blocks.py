"""Core blocks: Markdown files with YAML front matter in one folder, always in the prompt in full.

Seed 002 §3.6: the memory system scans a folder for ``*.md`` files that start with a YAML header and
takes their body as memory: persona, task, character, words, notes, human… People edit them; the
agent reads them. A block file looks like::

    ---
    label: persona          # optional; the file stem otherwise
    description: 我是谁      # optional; templates may show it
    limit: 2000             # optional; the most characters append/replace may leave in the body
    order: 1                # optional; blocks sort by order, then label (no order: after those with one)
    agent: 祈煜              # optional; the agent (or list of agents) whose block it is; none: every agent's
    ---
    我是祈煜，一名画家……

A block that names its agent belongs to that agent and hides a shared block of the same label from it.

Files are re-read when they change (their mtime, size or inode) and when files come or go; each
``blocks()`` call checks with one ``stat`` per file. A ``*.md`` file without front matter is not a
block (a README may sit in the folder). A file whose front matter is broken is left out, with the
reason in ``errors`` and the log; the other blocks still load.

``append`` and ``replace`` edit a block's file on disk atomically (a temporary file renamed over it),
keeping its front matter byte for byte, and refuse with ``InvalidInput`` an edit that would take the
body past ``limit``. An edit that shrinks a block already over its limit (a person wrote it so) is
allowed.
"""

from __future__ import annotations

import contextlib
import logging
import os
import stat
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from huiyi.checks import check_storable
from huiyi.errors import InvalidInput, NotFound
from huiyi.model import CoreBlock
from huiyi.patterns import lazy
from huiyi.text.controls import without_controls

__all__ = ["CoreBlocks", "Edit", "appending", "block_text", "check_limit", "replacing"]

log = logging.getLogger(__name__)

_FENCE_OPEN = "---"
_FENCE_CLOSE = ("---", "...")
_LEADING_BLANK_LINES = lazy(r"\A(?:[ \t]*\n)+")

_Signature = tuple[int, int, int]  # mtime_ns, size, inode


@dataclass
class _Parsed:
    """One block file as read: its front matter verbatim (for edits) and the block it holds."""

    head: str  # the opening fence, the YAML and the closing fence, exactly as in the file
    body: str  # everything after the closing fence, newlines as in the file
    newline: str
    block: CoreBlock
    limit: int | None
    order: float | None
    agents: tuple[str, ...] = ()  # empty: shared by every agent


@dataclass
class _Entry:
    signature: _Signature
    parsed: _Parsed | None  # None: not a block (no front matter) or broken (see error)
    error: str = ""


def _signature(path: Path) -> _Signature:
    info = path.stat()
    return info.st_mtime_ns, info.st_size, info.st_ino


def block_text(body: str) -> str:
    """The body as the prompt shows it: Unix newlines, no blank lines before, no whitespace after."""
    return _LEADING_BLANK_LINES.sub("", body.replace("\r\n", "\n")).rstrip()


def _split_front_matter(raw: str, name: str) -> tuple[str, str, str] | None:
    """(head, yaml, body) of a file that opens with a ``---`` line; ``None`` for a plain file."""
    lines = raw.splitlines(keepends=True)
    if not lines or lines[0].rstrip() != _FENCE_OPEN:
        return None
    for index in range(1, len(lines)):
        if lines[index].rstrip() in _FENCE_CLOSE:
            return "".join(lines[: index + 1]), "".join(lines[1:index]), "".join(lines[index + 1 :])
    raise InvalidInput(f"core block file {name}: the front matter opened by '---' on line 1 is never closed by '---'")


def _parse(path: Path, raw: str) -> _Parsed | None:
    """A block file's content, or ``None`` when it has no front matter. Raises ``InvalidInput``."""
    name = path.name
    raw = raw.removeprefix("\ufeff")
    parts = _split_front_matter(raw, name)
    if parts is None:
        return None
    head, front, body = parts
    import yaml  # only files with front matter need it (issue 15: `import huiyi` stays light)

    try:
        meta: Any = yaml.safe_load(front) if front.strip() else {}
    except yaml.YAMLError as error:
        problem = getattr(error, "problem", None) or " ".join(str(error).split())
        mark = getattr(error, "problem_mark", None)
        where = f", line {mark.line + 2}" if mark is not None else ""  # +1 for the fence, +1 from 0-based
        context, context_mark = getattr(error, "context", None), getattr(error, "context_mark", None)
        if context and context_mark is not None:
            problem = f"{problem} ({context} on line {context_mark.line + 2})"
        raise InvalidInput(f"core block file {name}{where}: the YAML front matter cannot be read: {problem}") from error
    if meta is None:
        meta = {}
    if not isinstance(meta, dict):
        raise InvalidInput(
            f"core block file {name}: the front matter must be 'key: value' lines, not a {type(meta).__name__}"
        )
    label = meta.get("label", path.stem)
    if not isinstance(label, str) or not label.strip():
        raise InvalidInput(f"core block file {name}: 'label' must be a non-empty text, not {label!r}")
    limit = meta.get("limit")
    if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int) or limit <= 0):
        raise InvalidInput(
            f"core block file {name}: 'limit' must be a whole number of characters above 0, not {limit!r}"
        )
    order = meta.get("order")
    if order is not None and (isinstance(order, bool) or not isinstance(order, int | float)):
        raise InvalidInput(f"core block file {name}: 'order' must be a number, not {order!r}")
    description = meta.get("description")
    if description is not None and not isinstance(description, str):
        raise InvalidInput(f"core block file {name}: 'description' must be text, not {description!r}")
    owners = meta.get("agent", meta.get("agents"))
    if owners is None:
        agents: tuple[str, ...] = ()
    elif isinstance(owners, str) and owners.strip():
        agents = (owners.strip(),)
    elif isinstance(owners, list) and owners and all(isinstance(a, str) and a.strip() for a in owners):
        agents = tuple(sorted({a.strip() for a in owners}))
    else:
        raise InvalidInput(f"core block file {name}: 'agent' must be an agent id or a list of them, not {owners!r}")
    newline = "\r\n" if "\r\n" in raw else "\n"
    block = CoreBlock(label=label.strip(), text=block_text(body), meta=dict(meta))
    return _Parsed(head=head, body=body, newline=newline, block=block, limit=limit, order=order, agents=agents)


def _read(path: Path) -> str:
    try:
        with path.open(encoding="utf-8", newline="") as handle:
            return handle.read()
    except UnicodeDecodeError as error:
        raise InvalidInput(
            f"core block file {path.name}: not UTF-8 text ({error.reason} at byte {error.start})"
        ) from error


def _write_atomically(path: Path, content: str) -> None:
    """Write ``content`` to a temporary file beside ``path``, flush it to disk, then rename it over ``path``."""
    mode = stat.S_IMODE(path.stat().st_mode) if path.exists() else 0o644
    import tempfile  # here: it loads shutil, bz2 and lzma, which a memory that never writes a block skips (issue 15)

    fd, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as handle:
            handle.write(content)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(temporary, mode)
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temporary)
        raise


class CoreBlocks:
    """The core blocks of one folder, hot-reloaded. Safe to share between threads."""

    def __init__(self, folder: str | Path) -> None:
        self.folder = Path(folder).expanduser()
        if self.folder.exists() and not self.folder.is_dir():
            raise InvalidInput(f"core blocks folder {str(folder)!r} is a file, not a folder")
        self._lock = threading.RLock()
        self._entries: dict[str, _Entry] = {}  # file name -> what it held when last read
        self._chosen: list[_Parsed] = []
        self._files: dict[tuple[tuple[str, ...], str], Path] = {}  # (owners, label) -> file
        self._errors: dict[str, str] = {}  # file name -> why it is not loaded
        self._missing_warned = False

    # ---------------------------------------------------------------- reading

    def blocks(self, agent: str | None = None) -> list[CoreBlock]:
        """The blocks an agent sees (shared ones only without an agent), sorted by ``order`` then label.

        Files are re-read first if any changed.
        """
        with self._lock:
            self._refresh()
            return [parsed.block for parsed in self._visible(agent).values()]

    def get(self, label: str, agent: str | None = None) -> CoreBlock:
        with self._lock:
            self._refresh()
            return self._parsed(label, agent)[0].block

    def path(self, label: str, agent: str | None = None) -> Path:
        """The file that holds block ``label`` as ``agent`` sees it."""
        with self._lock:
            self._refresh()
            return self._parsed(label, agent)[1]

    def is_shared(self, label: str, agent: str | None = None) -> bool:
        """Whether the block ``agent`` sees as ``label`` is shared by every agent (names none)."""
        with self._lock:
            self._refresh()
            return not self._parsed(label, agent)[0].agents

    def limit(self, label: str, agent: str | None = None) -> int | None:
        with self._lock:
            self._refresh()
            return self._parsed(label, agent)[0].limit

    def _visible(self, agent: str | None) -> dict[str, _Parsed]:
        """label -> block for ``agent``: its own blocks before shared ones, in the blocks' order."""
        own = {p.block.label for p in self._chosen if agent is not None and agent in p.agents}
        return {
            p.block.label: p
            for p in self._chosen
            if (agent is not None and agent in p.agents) or (not p.agents and p.block.label not in own)
        }

    @property
    def errors(self) -> dict[str, str]:
        """Files left out because they could not be read, by file name, with the reason."""
        with self._lock:
            self._refresh()
            return dict(self._errors)

    def _scan(self) -> dict[str, _Signature]:
        try:
            entries = list(os.scandir(self.folder))
        except FileNotFoundError:
            if not self._missing_warned:
                log.warning("core blocks folder %s does not exist; no core blocks until it does", self.folder)
                self._missing_warned = True
            return {}
        self._missing_warned = False
        found: dict[str, _Signature] = {}
        for entry in entries:
            if not entry.name.endswith(".md") or entry.name.startswith("."):
                continue
            try:
                if not entry.is_file():
                    continue
                info = entry.stat()
            except FileNotFoundError:  # removed while we looked
                continue
            found[entry.name] = (info.st_mtime_ns, info.st_size, info.st_ino)
        return found

    def _refresh(self) -> None:
        found = self._scan()
        if found.keys() == self._entries.keys() and all(
            self._entries[name].signature == signature for name, signature in found.items()
        ):
            return
        entries: dict[str, _Entry] = {}
        for name, signature in found.items():
            old = self._entries.get(name)
            entries[name] = old if old is not None and old.signature == signature else self._load(name, signature)
        self._entries = entries
        self._rebuild()

    def _load(self, name: str, signature: _Signature) -> _Entry:
        path = self.folder / name
        try:
            parsed = _parse(path, _read(path))
        except InvalidInput as error:
            log.warning("%s", error.message)
            return _Entry(signature, None, error.message)
        except OSError as error:
            message = f"core block file {name}: cannot be read: {error.strerror or error}"
            log.warning("%s", message)
            return _Entry(signature, None, message)
        return _Entry(signature, parsed)

    def _rebuild(self) -> None:
        files: dict[tuple[tuple[str, ...], str], Path] = {}
        errors: dict[str, str] = {}
        chosen: list[_Parsed] = []
        for name in sorted(self._entries):
            entry = self._entries[name]
            if entry.error:
                errors[name] = entry.error
                continue
            if entry.parsed is None:
                continue
            key = (entry.parsed.agents, entry.parsed.block.label)
            # one label once per owner: shared blocks among themselves, an agent's among that agent's
            clash = next(
                (path for (owners, label), path in files.items() if label == key[1] and _same_owner(owners, key[0])),
                None,
            )
            if clash is not None:
                message = f"core block file {name}: label {key[1]!r} is already used by {clash.name}"
                log.warning("%s", message)
                errors[name] = message
                continue
            files[key] = self.folder / name
            chosen.append(entry.parsed)
        chosen.sort(key=lambda p: (p.order is None, p.order or 0, p.block.label))
        self._chosen = chosen
        self._files = files
        self._errors = errors

    def _parsed(self, label: str, agent: str | None = None) -> tuple[_Parsed, Path]:
        parsed = self._visible(agent).get(label)
        if parsed is not None:
            return parsed, self._files[(parsed.agents, label)]
        for name, error in self._errors.items():
            if Path(name).stem == label:
                raise InvalidInput(f"core block {label!r} is not loaded: {error}")
        known = ", ".join(sorted(self._visible(agent))) or "none"
        raise NotFound(f"there is no core block {label!r} in {self.folder}; the blocks are: {known}")

    # ---------------------------------------------------------------- editing

    def append(self, label: str, text: str, agent: str | None = None) -> CoreBlock:
        """Add ``text`` as new line(s) at the end of block ``label``; returns the block as written."""
        return self.edit(label, agent, appending(label, text))

    def replace(self, label: str, old: str, new: str, agent: str | None = None) -> CoreBlock:
        """Replace the one occurrence of ``old`` in block ``label`` by ``new`` (``""`` deletes it)."""
        return self.edit(label, agent, replacing(label, old, new))

    def edit(self, label: str, agent: str | None, change: Edit) -> CoreBlock:
        """Apply ``change`` to the file of block ``label`` as ``agent`` sees it, atomically."""
        with self._lock:
            self._refresh()
            parsed, path = self._parsed(label, agent)
            current = _parse(path, _read(path))  # the file as it is now, not as last cached
            if current is None or current.block.label != label or current.agents != parsed.agents:
                raise InvalidInput(f"core block file {path.name} changed while being edited; try again")
            body = change(current.body, current.newline)
            check_limit(label, current.block.text, block_text(body), current.limit)
            if not body.startswith(("\n", "\r\n")) and not current.head.endswith(("\n", "\r")):
                body = current.newline + body
            _write_atomically(path, current.head + body)
            self._entries[path.name] = self._load(path.name, _signature(path))
            self._rebuild()
            return self._parsed(label, agent)[0].block


Edit = Callable[[str, str], str]  # (body, newline) -> new body


def _same_owner(a: tuple[str, ...], b: tuple[str, ...]) -> bool:
    return a == b or bool(set(a) & set(b))


def appending(label: str, text: str) -> Edit:
    """The edit that adds ``text`` as new line(s) at the end of a block's body."""
    # as the tools show a block: controls are never written into one (text of controls alone is empty)
    addition = without_controls(text).strip("\n") if isinstance(text, str) else ""
    if not addition.strip():
        raise InvalidInput(f"nothing to append to core block {label!r}: the text is empty")

    def edit(body: str, newline: str) -> str:
        kept = body.rstrip()
        added = addition.replace("\n", newline)
        return f"{kept}{newline}{added}{newline}" if kept else f"{added}{newline}"

    return edit


def replacing(label: str, old: str, new: str) -> Edit:
    """The edit that replaces the one occurrence of ``old`` in a block's body by ``new``."""
    if not isinstance(old, str) or not old:
        raise InvalidInput(f"core block {label!r}: the text to replace is empty")
    if not isinstance(new, str):
        raise InvalidInput(f"core block {label!r}: the replacement must be text")

    def edit(body: str, newline: str) -> str:
        # matched as the tools showed it, without controls (a block written before keeps none after the edit):
        # the text shown to a model was refused as not in the block (helper's review)
        plain, target, replacement = without_controls(body), without_controls(old), without_controls(new)
        count = plain.count(target)
        if count == 0:
            raise InvalidInput(f"core block {label!r} does not contain {_quote(old)}; nothing was replaced")
        if count > 1:
            raise InvalidInput(
                f"core block {label!r} contains {_quote(old)} {count} times; "
                "include more of the surrounding text so it names one place"
            )
        edited = plain.replace(target, replacement, 1)
        return edited.replace("\n", newline) if newline != "\n" else edited

    return edit


# a block without a ``limit`` of its own: it is in every prompt, and a tool could otherwise grow it without
# end (Letta's core blocks default to the same 5 000 characters)
DEFAULT_LIMIT = 5000


def check_limit(label: str, before: str, after: str, limit: int | None) -> None:
    """Refuse an edit that takes a block past its limit; shrinking one already over it is allowed."""
    limit = DEFAULT_LIMIT if limit is None else limit
    try:
        check_storable(after, f"core block {label!r}")
    except ValueError as exc:
        raise InvalidInput(str(exc)) from exc
    if len(after) > limit and len(after) > len(before):
        raise InvalidInput(
            f"core block {label!r} would be {len(after)} characters, over its limit of {limit} "
            f"(now {len(before)}); shorten or replace something in it first"
        )


def _quote(text: str) -> str:
    shown = text if len(text) <= 40 else text[:37] + "..."
    return repr(shown)
