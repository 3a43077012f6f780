"""Every tunable in one typed config, loadable from TOML and the environment.

Precedence: keyword arguments > environment (``HUIYI_…``, nested with ``__``) > TOML file > defaults.
Defaults come from the seeds; the comment beside each names its section.

    >>> Config().window.fold_at
    20
    >>> Config(recall={"limit": 3}).recall.limit
    3
    >>> Config(recall={"recipe": "seed004", "limit": 3}).recall.score_weights["relevance"]
    0.4
"""

from __future__ import annotations

from huiyi.config.consolidate import ConsolidateConfig, DescribeConfig, EntityMergeConfig, LinkConfig, SupersedeConfig
from huiyi.config.core import (
    BookkeepingConfig,
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
from huiyi.config.forget import ForgetConfig, StrengthConfig
from huiyi.config.proxy import ProxyConfig, ProxyModel
from huiyi.config.recall import RecallRecipe
from huiyi.config.settings import Config
from huiyi.config.summarize import SummaryConfig

__all__ = [
    "BookkeepingConfig",
    "ChunkConfig",
    "Config",
    "ConsolidateConfig",
    "ContextConfig",
    "DescribeConfig",
    "EmbedConfig",
    "EntityMergeConfig",
    "ExpandConfig",
    "ForgetConfig",
    "HttpConfig",
    "IngestConfig",
    "LLMConfig",
    "LinkConfig",
    "OverviewConfig",
    "ProxyConfig",
    "ProxyModel",
    "RecallRecipe",
    "StoreConfig",
    "StrengthConfig",
    "SummaryConfig",
    "SupersedeConfig",
    "WindowConfig",
    "WorkerConfig",
]
