"""The reader of prompt files: ``huiyi/prompts/<name>_<language>.md`` beside this module, overridable
from a folder of one's own.

A file holds an optional leading ``<!-- … -->`` note (never sent), the system part, a line
``<!-- user -->``, and the user template with ``{{placeholders}}``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from huiyi.errors import ConfigError
from huiyi.patterns import lazy

if TYPE_CHECKING:
    from importlib.resources.abc import Traversable

LEADING_COMMENT = lazy(r"\A\s*<!--.*?-->\s*", re.DOTALL)
USER_MARKER = lazy(r"^[ \t]*<!--\s*user\s*-->[ \t]*$", re.MULTILINE)
_PLACEHOLDER = lazy(r"\{\{\s*(\w+)\s*\}\}")
_PACKAGE = Path(__file__).resolve().parent.parent  # the huiyi package's folder


def packaged(*parts: str) -> Path | Traversable:
    """A file shipped in the huiyi package: its path where the package is a folder (an installed wheel, a
    checkout), else importlib.resources' view of it (a zipped package). Importing importlib.resources
    (tempfile, shutil, zipfile, bz2, lzma) cost a fresh process ~10 ms before its first recall (issue 15)."""
    path = _PACKAGE.joinpath(*parts)
    if path.exists():
        return path
    from importlib import resources

    return resources.files("huiyi").joinpath(*parts)


def packaged_lines(*parts: str) -> tuple[str, ...]:
    """The lines of a list shipped in the huiyi package (a word or a chat line each), stripped, without blank
    lines and ``#`` comments."""
    text = packaged(*parts).read_text(encoding="utf-8")
    return tuple(line.strip() for line in text.splitlines() if line.strip() and not line.lstrip().startswith("#"))


@dataclass(frozen=True)
class Prompt:
    """A prompt file split into its system part and its user template."""

    system: str
    user: str
    source: str

    def render(self, values: dict[str, str]) -> list[dict[str, str]]:
        def fill(template: str) -> str:
            return _PLACEHOLDER.sub(lambda m: values.get(m.group(1), m.group(0)), template).strip()

        return [{"role": "system", "content": fill(self.system)}, {"role": "user", "content": fill(self.user)}]


def read_prompt(file: str, prompt_dir: str | Path | None, what: str) -> tuple[str, str]:
    """The text of ``file`` (its leading note removed) from ``prompt_dir`` if it holds one, else the
    packaged file; and where it came from."""
    if prompt_dir:
        path = Path(prompt_dir) / file
        if path.is_file():
            return LEADING_COMMENT.sub("", path.read_text(encoding="utf-8"), count=1), str(path)
    shipped = packaged("prompts", file)
    if not shipped.is_file():
        raise ConfigError(f"no {what} prompt {file!r}")
    return LEADING_COMMENT.sub("", shipped.read_text(encoding="utf-8"), count=1), f"huiyi/prompts/{file}"


def load_prompt_file(file: str, prompt_dir: str | Path | None, what: str) -> Prompt:
    """A prompt that must have both parts, the system part and the user template."""
    text, source = read_prompt(file, prompt_dir, what)
    parts = USER_MARKER.split(text, maxsplit=1)
    if len(parts) != 2 or not parts[0].strip() or not parts[1].strip():
        raise ConfigError(f"the {what} prompt {source} needs a system part, a line <!-- user -->, and a user part")
    return Prompt(system=parts[0], user=parts[1], source=source)
