"""The one base of every config section: unknown keys are errors, so a typo never passes silently.

Numbers are bounded where they are read (the types below) and never NaN or infinite, so a value that
cannot work is a config error at load, not a crash or a silent misbehaviour in a later call.
"""

# no `from __future__ import annotations`: the models' field types stay objects, which pydantic would otherwise
# compile and evaluate from strings, one by one, at import (issue 15)

from typing import Annotated

from pydantic import AfterValidator, BaseModel, ConfigDict, Field

__all__ = ["ApiKey", "ApiKeys", "Count", "Positive", "Seconds", "Section"]

_MOST = 2**31 - 1  # beyond any real count; 10**30 passed load and overflowed SQLite's INTEGER in a recall
Count = Annotated[int, Field(ge=0, le=_MOST)]  # how many; 0 allowed (none, or "off" where the field says so)
Positive = Annotated[int, Field(ge=1, le=_MOST)]  # how many, at least one
Seconds = Annotated[float, Field(gt=0)]  # a wait or a timeout: 0 would spin or time out at once


def _api_key(value: str) -> str:
    key = value.strip()  # a key pasted with its line break
    if not (key.isascii() and key.isprintable() and " " not in key):
        # sent as "Authorization: Bearer <key>": a placeholder such as "…" failed at the first request
        raise ValueError("an api_key is one word of printable ASCII, as an HTTP header carries it")
    return key


ApiKey = Annotated[str, AfterValidator(_api_key)]  # a key sent or taken as "Authorization: Bearer <key>"


def _api_keys(value: dict[str, list[str]]) -> dict[str, list[str]]:
    # checked here, not as dict[ApiKey, ...]: an error's location would name the key
    return {_api_key(key): agents for key, agents in value.items()}


ApiKeys = Annotated[dict[str, list[str]], AfterValidator(_api_keys)]  # served keys -> the agents each may use


class Section(BaseModel):
    """A config section: a typed group of settings with the seeds' defaults."""

    # defer_build: validators are built when a config is first made, not at `import huiyi` (issue 15)
    # inputs are left out of errors, as Config.load leaves them out: an api_key must not reach a log
    model_config = ConfigDict(extra="forbid", defer_build=True, allow_inf_nan=False, hide_input_in_errors=True)
