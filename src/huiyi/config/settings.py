"""The whole configuration of one store: every section, read from TOML, the environment and arguments."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any, Literal

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict

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
from huiyi.config.recall import RecallConfig, RoutesConfig
from huiyi.config.summarize import SummaryConfig
from huiyi.errors import ConfigError


class Config(BaseSettings):
    """The whole configuration of one huiyi store."""

    model_config = SettingsConfigDict(env_prefix="HUIYI_", env_nested_delimiter="__", extra="forbid")

    language: Literal["zh", "en"] = "zh"
    timezone: str = "Asia/Shanghai"
    embed: EmbedConfig = Field(default_factory=EmbedConfig)
    llm: LLMConfig = Field(default_factory=LLMConfig)
    window: WindowConfig = Field(default_factory=WindowConfig)
    chunk: ChunkConfig = Field(default_factory=ChunkConfig)
    recall: RecallConfig = Field(default_factory=RecallConfig)
    store: StoreConfig = Field(default_factory=StoreConfig)
    ingest: IngestConfig = Field(default_factory=IngestConfig)
    worker: WorkerConfig = Field(default_factory=WorkerConfig)
    overview: OverviewConfig = Field(default_factory=OverviewConfig)
    context: ContextConfig = Field(default_factory=ContextConfig)
    http: HttpConfig = Field(default_factory=HttpConfig)
    expand: ExpandConfig = Field(default_factory=ExpandConfig)
    routes: RoutesConfig = Field(default_factory=RoutesConfig)
    consolidate: ConsolidateConfig = Field(default_factory=ConsolidateConfig)
    summary: SummaryConfig = Field(default_factory=SummaryConfig)

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
            # keyword arguments beat the environment in pydantic-settings, and a file must not,
            # so the environment's values are laid over the file's by hand.
            from_env = cls().model_dump(exclude_unset=True)
            return cls(**_deep_merge(_deep_merge(data, from_env), overrides))
        except ValueError as exc:
            raise ConfigError(f"invalid config: {exc}") from exc


def _deep_merge(base: dict[str, Any], extra: dict[str, Any]) -> dict[str, Any]:
    out = dict(base)
    for key, value in extra.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = _deep_merge(out[key], value)
        else:
            out[key] = value
    return out
