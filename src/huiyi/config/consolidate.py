"""The consolidate section: duplicate entities, superseded facts, descriptions, links, forgetting.

Each comment names the seed section a default comes from; "ours" marks a number the seeds leave open.

    >>> ConsolidateConfig().entities.merge_threshold
    0.95
    >>> ConsolidateConfig().forget.total_limit
    20000
"""

# no `from __future__ import annotations`: the models' field types stay objects, which pydantic would otherwise
# compile and evaluate from strings, one by one, at import (issue 15)

from pydantic import Field, model_validator

from huiyi.config._section import Section
from huiyi.config.forget import ForgetConfig
from huiyi.model import MemoryKind

__all__ = [
    "ConsolidateConfig",
    "DescribeConfig",
    "EntityMergeConfig",
    "LinkConfig",
    "SupersedeConfig",
]


class EntityMergeConfig(Section):
    """Step a: duplicate entities (seed 004 §5.1 节点去重; seed 002: 霓霓 → 苏霓)."""

    enabled: bool = True
    merge_threshold: float = Field(default=0.95, ge=0.0, le=1.0)  # seed 004 §5.1 b: sim > 0.95 直接合并
    # seed 004 §5.1 c: 0.85 < sim ≤ 0.95 merges only with the same type and matching neighbours (上下文匹配)
    candidate_threshold: float = Field(default=0.85, ge=0.0, le=1.0)
    candidates: int = Field(default=5, ge=1)  # seed 004 §5.1 2: the top-k similar nodes, k = 5
    # ours: persons (客体) merge on name evidence only (person table, aliases, "霓霓就是苏霓"); the cosine of two
    # people's names says nothing about them being one (e5: 小明/小红 0.91, two-character names often above 0.95)
    similar_persons: bool = False
    # ours: neighbours "agree" when the Jaccard overlap of the two neighbour sets reaches this (and one is shared)
    neighbour_overlap: float = Field(default=0.5, ge=0.0, le=1.0)
    # ours (issue #13): below merge_threshold, agreeing neighbours merge only when the names agree too
    band_needs_names: bool = True
    # ours: an entity linked by facts to more than this share of all entities (the person, the agent) is a hub;
    # sharing a hub says nothing about two entities being one
    hub_share: float = Field(default=0.5, gt=0.0, le=1.0)
    # identity statements in a memory's text ("霓霓就是苏霓"): {a} and {b} are two entities' names
    identity_patterns: list[str] = Field(
        default_factory=lambda: [
            "{a}就是{b}",
            "{a}也叫{b}",
            "{a}又叫{b}",
            "{a}也就是{b}",
            "{a}即{b}",
            "{a}是{b}的小名",
            "{a}是{b}的昵称",
            "{a}是{b}的外号",
            "{a}是{b}的网名",
            "{a}的本名是{b}",
            "{a}的大名是{b}",
            "{a}的真名是{b}",
            "{a}本名叫{b}",
            "{a}真名叫{b}",
            "{a} aka {b}",
            "{a}, also known as {b}",
            "{a} is {b}'s nickname",
        ]
    )
    # predicates of identity facts (subject and object name one being)
    identity_predicates: list[str] = Field(
        default_factory=lambda: [
            "就是",
            "也叫",
            "又叫",
            "即",
            "别名",
            "别名是",
            "小名是",
            "昵称是",
            "外号是",
            "网名是",
            "本名是",
            "真名是",
            "大名是",
            "全名是",
            "名字是",
            "aka",
            "also known as",
            "nickname is",
            "name is",
            "real name is",
        ]
    )

    @model_validator(mode="after")
    def _check(self) -> "EntityMergeConfig":
        if self.candidate_threshold > self.merge_threshold:
            raise ValueError("candidate_threshold must not exceed merge_threshold")
        for pattern in self.identity_patterns:
            if "{a}" not in pattern or "{b}" not in pattern:
                raise ValueError(f"identity pattern {pattern!r} needs both {{a}} and {{b}}")
        return self


class SupersedeConfig(Section):
    """Step b: a newer fact that contradicts an older one closes it (valid_to), never deletes it."""

    enabled: bool = True
    # predicates that hold one value at a time: a new object replaces the old one
    single_valued: list[str] = Field(
        default_factory=lambda: [
            *"住在 住 家在 家住 家住在 居住在 现居 住址是 生日是 生日 名字是 叫 本名是 真名是".split(),
            *"职业是 职业 工作是 工作于 年龄 年龄是 今年 岁数 身高 体重 星座 星座是 血型 血型是".split(),
            *"就读于 学校是 老家是 老家在 来自 婚姻状况 感情状态".split(),
            *"手机号 手机号是 微信号 邮箱".split(),
            "lives in",
            "birthday is",
            "name is",
            "works as",
            "works at",
            "age",
            "is from",
            "job is",
            "studies at",
            "height",
            "weight",
            "star sign",
            "phone number",
        ]
    )
    single_valued_prefixes: list[str] = Field(default_factory=lambda: ["最喜欢的", "最爱的", "favourite ", "favorite "])
    # a preference and its negation contradict each other (喜欢 咖啡 vs 讨厌 咖啡)
    positive: list[str] = Field(
        default_factory=lambda: [
            *"喜欢 爱 喜爱 热爱 爱吃 爱喝 爱玩 爱看 爱听 迷上了 迷上 超爱 最爱 很喜欢 超喜欢 特别喜欢 钟爱".split(),
            *"likes loves enjoys adores like love enjoy".split(),
        ]
    )
    negative: list[str] = Field(
        default_factory=lambda: [
            *"讨厌 厌恶 反感 受不了 烦 嫌弃 怕 害怕 戒了 不喜欢 不爱 不太喜欢 不怎么喜欢 不再喜欢 再也不喜欢".split(),
            "dislikes",
            "hates",
            "can't stand",
            "cannot stand",
            "doesn't like",
            "does not like",
            "no longer likes",
            "dislike",
            "hate",
        ]
    )
    # a predicate starting with one of these negates the rest (不是 vs 是, 不养 vs 养)
    negation_prefixes: list[str] = Field(
        default_factory=lambda: [
            *"再也不 不再 不太 不怎么 没有 不 没 别".split(),
            "doesn't ",
            "does not ",
            "don't ",
            "no longer ",
            "not ",
            "isn't ",
            "is not ",
        ]
    )
    llm_max_pairs: int = Field(default=40, ge=0)  # ours: ambiguous pairs shown to the LLM per run


class DescribeConfig(Section):
    """Step c: seed 000 §八 记忆的清理 2, accumulated attribute descriptions of one subject merged."""

    enabled: bool = True
    llm_max_groups: int = Field(default=20, ge=0)  # ours: (subject, keyword) groups sent to the LLM per run
    llm_group_size: int = Field(default=20, ge=2)  # ours: the newest facts of a group shown at once


class LinkConfig(Section):
    """Step d: seed 004 §12.4.3 关联发现 (time-adjacent memories; memories sharing nodes)."""

    enabled: bool = True
    window_minutes: float = Field(default=60.0, ge=0.0)  # seed 004 §12.4.3 _find_temporal_neighbors: 3600 s
    temporal_weight: float = 0.5  # seed 004 §12.4.3: a discovered (推测) edge has importance 0.5
    shared_weight: float = 0.4  # seed 004 §12.4.3: 共享节点 → 相关, importance 0.4
    max_per_event: int = Field(default=5, ge=0)  # ours: new links touching one event per run
    hub_share: float = Field(default=0.5, gt=0.0, le=1.0)  # ours: an entity in more than this share of events is a hub
    min_name_chars: int = Field(default=2, ge=1)  # ours: shorter names are not looked for in event texts


class ConsolidateConfig(Section):
    """Flow 3, consolidate: every step on by default, each working without an LLM."""

    entities: EntityMergeConfig = Field(default_factory=EntityMergeConfig)
    supersede: SupersedeConfig = Field(default_factory=SupersedeConfig)
    describe: DescribeConfig = Field(default_factory=DescribeConfig)
    links: LinkConfig = Field(default_factory=LinkConfig)
    strength: bool = True  # step e: seed 000 increments and seed 004 decay
    # step e: capacity (seed 000 §八 记忆清理 5), inactive persons' minimum (§八 记忆的清理 4),
    # how often consolidate_due runs (§八 记忆的清理 1: every_days)
    forget: ForgetConfig = Field(default_factory=ForgetConfig)
    forget_enabled: bool = True
    # what capacity may delete; official memories and summaries never go
    forget_kinds: list[MemoryKind] = Field(
        default_factory=lambda: [MemoryKind.CHUNK, MemoryKind.EVENT, MemoryKind.NOTE]
    )
    forget_closed_facts: bool = False  # facts closed by a newer one are history; kept unless asked
    forget_valid_facts: bool = False  # facts still valid are never forgotten unless asked
    # seed 000 §八 记忆的清理 3 ((当日日期-强度) < Limit 删除, 前期可暂不考虑): forgettable memories whose retained
    # strength (strength × seed 004 decay) falls below this go even under capacity; 0 turns it off
    forget_below: float = Field(default=0.0, ge=0.0)
    include_official: bool = False  # consolidate_due leaves the curated official scope alone
    prompt_dir: str = ""  # a folder whose supersede_/describe_<lang>.md override the packaged prompts
    lease_seconds: float = Field(default=3600.0, gt=0)  # a consolidation whose process died is taken again after this

    @model_validator(mode="after")
    def _check(self) -> "ConsolidateConfig":
        if MemoryKind.SUMMARY in self.forget_kinds:
            raise ValueError("summaries are never forgotten by capacity")
        if MemoryKind.FACT in self.forget_kinds:
            raise ValueError("facts are forgotten through forget_closed_facts / forget_valid_facts, not forget_kinds")
        return self
