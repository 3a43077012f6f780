"""The one base of every config section: unknown keys are errors, so a typo never passes silently."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class Section(BaseModel):
    """A config section: a typed group of settings with the seeds' defaults."""

    # defer_build: validators are built when a config is first made, not at `import huiyi` (issue 15)
    model_config = ConfigDict(extra="forbid", defer_build=True)
