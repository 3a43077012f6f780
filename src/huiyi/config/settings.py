"""The whole configuration of one store: every section, read from TOML, the environment and arguments."""

from __future__ import annotations

import tomllib
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from huiyi.config.consolidate import ConsolidateConfig
from huiyi.config.core import (
    ChunkConfig,
    ContextConfig,
    EmbedConfig,
    ExpandConfig,
    HttpConfig,
    IngestConfig,
    LLMConfig,
    OverviewConfig,
    StoreConfig,
    WindowConfig,
    WorkerConfig,
)
from huiyi.config.env import by_field_name, deep_update, from_environment
from huiyi.config.proxy import ProxyConfig
from huiyi.config.recall import NAMED_RECIPES, RecallRecipe, expand_recipe
from huiyi.config.summarize import SummaryConfig
from huiyi.errors import ConfigError


class Config(BaseModel):
    """The whole configuration of one huiyi store.

    Making one (``Config(...)`` or ``model_validate``) reads the environment (``HUIYI_…``, nested with
    ``__``: see :mod:`huiyi.config.env`) under the given values, as the pydantic-settings class it was did.
    """

    # validate_default and arbitrary_types_allowed as pydantic-settings had them
    model_config = ConfigDict(extra="forbid", defer_build=True, validate_default=True, arbitrary_types_allowed=True)

    language: Literal["zh", "en"] = "zh"
    timezone: str = "Asia/Shanghai"
    embed: EmbedConfig = Field(default_factory=EmbedConfig)
    llm: LLMConfig = Field(default_factory=LLMConfig)
    window: WindowConfig = Field(default_factory=WindowConfig)
    chunk: ChunkConfig = Field(default_factory=ChunkConfig)
    recall: RecallRecipe = Field(default_factory=RecallRecipe)  # the default recipe
    recipes: dict[str, RecallRecipe] = Field(default_factory=dict)  # a user's named recipes
    store: StoreConfig = Field(default_factory=StoreConfig)
    ingest: IngestConfig = Field(default_factory=IngestConfig)
    worker: WorkerConfig = Field(default_factory=WorkerConfig)
    overview: OverviewConfig = Field(default_factory=OverviewConfig)
    context: ContextConfig = Field(default_factory=ContextConfig)
    http: HttpConfig = Field(default_factory=HttpConfig)
    proxy: ProxyConfig = Field(default_factory=ProxyConfig)
    expand: ExpandConfig = Field(default_factory=ExpandConfig)
    consolidate: ConsolidateConfig = Field(default_factory=ConsolidateConfig)
    summary: SummaryConfig = Field(default_factory=SummaryConfig)

    def __init__(self, **values: Any) -> None:
        super().__init__(**deep_update(from_environment(type(self)), by_field_name(type(self), values)))

    @model_validator(mode="before")
    @classmethod
    def _recipes(cls, data: Any) -> Any:
        """Lay each recipe over the named recipe it starts from, so ``config.recall`` is complete."""
        if not isinstance(data, dict) or not ("recall" in data or "recipes" in data):
            return data
        user = {name: _fields(value) for name, value in (data.get("recipes") or {}).items()}
        for name in user:
            if name in NAMED_RECIPES:
                raise ValueError(f"recipe {name!r} is built in; name yours differently")
        try:
            recipes = {name: expand_recipe(fields, user, (name,)) for name, fields in user.items()}
            recall = expand_recipe(_fields(data.get("recall") or {}), user)
        except ValueError:
            if _lenient.get():  # the environment alone may name a recipe the file defines
                return data
            raise
        return {**data, "recall": recall, **({"recipes": recipes} if recipes else {})}

    @classmethod
    def load(cls, path: str | Path | None = None, **overrides: Any) -> Config:
        """Read a TOML file (if given), let the environment override it, then ``overrides``."""
        data: dict[str, Any] = {}
        if path is not None:
            try:
                data = tomllib.loads(Path(path).read_text(encoding="utf-8"))
            except (OSError, tomllib.TOMLDecodeError) as exc:
                raise ConfigError(f"cannot read config {path}: {exc}") from exc
        try:
            # keyword arguments beat the environment, and a file must not,
            # so the environment's values are laid over the file's by hand.
            with _env_only():
                from_env = cls().model_dump(exclude_unset=True)
            return cls(**deep_update(data, from_env, overrides))
        except ValueError as exc:
            raise ConfigError(f"invalid config: {exc}") from exc


def _fields(value: Any) -> dict[str, Any]:
    """The fields a recipe sets: a TOML table as it is, a model without its defaults."""
    if isinstance(value, BaseModel):
        return value.model_dump(exclude_unset=True)
    return dict(value)


_lenient: ContextVar[bool] = ContextVar("huiyi_config_lenient", default=False)


@contextmanager
def _env_only() -> Iterator[None]:
    token = _lenient.set(True)
    try:
        yield
    finally:
        _lenient.reset(token)
