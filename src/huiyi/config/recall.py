"""The recall recipe: every route weight, candidate count, bonus and score weight one recall uses.

``[recall]`` is the default recipe; ``recipe = "seed004"`` there starts it from a named recipe whose
fields the section overrides. ``[recipes.<name>]`` defines a user's own, named like the built-ins.

    >>> RecallRecipe().limit, RecallRecipe().score_weights
    (10, {'relevance': 1.0})
    >>> expand_recipe({"recipe": "seed004", "limit": 3}, {})["score_weights"]["importance"]
    0.2
"""

# no `from __future__ import annotations`: the models' field types stay objects, which pydantic would otherwise
# compile and evaluate from strings, one by one, at import (issue 15)

import math
from collections.abc import Mapping
from typing import Any, Literal, get_args

from pydantic import Field, field_validator

from huiyi.config._section import Count, Positive, Section

__all__ = [
    "FEATURES",
    "NAMED_RECIPES",
    "SEED001_NAMES",
    "SEED001_WEIGHTS",
    "SEED004_WEIGHTS",
    "FeatureName",
    "RecallRecipe",
    "expand_recipe",
]

# what a score may weigh: see huiyi.recall.score.Features
FeatureName = Literal["relevance", "importance", "recency", "access", "recent_use", "feedback", "graph", "time_decay"]
FEATURES: tuple[str, ...] = get_args(FeatureName)

# seed 004 §5.2 阶段3评分排序: α=0.4, β=0.2, γ=0.2, δ=0.1, ε=0.1
SEED004_WEIGHTS: dict[FeatureName, float] = {
    "relevance": 0.4,
    "importance": 0.2,
    "graph": 0.2,
    "time_decay": 0.1,
    "access": 0.1,
}
# seed 001 §2.4.2 默认的权重比例
SEED001_WEIGHTS: dict[FeatureName, float] = {
    "importance": 0.3,  # 重要性权重
    "recency": 0.2,  # 时间距离权重
    "access": 0.1,  # 使用次数权重
    "recent_use": 0.2,  # 邻用权重
    "relevance": 0.1,  # 内容权重
    "feedback": 0.1,  # 反馈权重
}


_RELEVANCE_ONLY: dict[FeatureName, float] = {"relevance": 1.0}
# seed 001 §2.4.1's six ratios by the seed's own names, so a custom preset may be written in its terms
SEED001_NAMES: dict[str, FeatureName] = {
    "重要性权重": "importance",
    "时间距离权重": "recency",
    "使用次数权重": "access",
    "邻用权重": "recent_use",
    "内容权重": "relevance",
    "反馈权重": "feedback",
    "content": "relevance",
    "time_distance": "recency",
    "use_count": "access",
}
_SUM_TOLERANCE = 0.01  # ratios written by hand to two decimals still sum to 1

# the views of a dialogue recall may search (huiyi.recall.views), and the ones it does by default
ViewName = Literal["latest", "exchange", "recent", "dialogue"]
VIEWS: tuple[ViewName, ...] = ("latest", "exchange", "recent", "dialogue")
DEFAULT_VIEWS: tuple[ViewName, ...] = ("recent", "dialogue")


class RecallRecipe(Section):
    """What one recall does: routes → fuse → rerank → score → threshold and limit → roulette."""

    recipe: str = "relevance"  # the named recipe this one starts from; its own fields override that one's
    limit: Positive = 10
    # on the fused 0–1 scale; seed 000 used 0.56 on its own scale. At 0, what no route scored is still left out
    score_threshold: float = 0.0
    max_query_chars: Positive = 2000
    reinforce: bool = True  # recall strengthens what it returns (seed 000 §8: +15), written in the background
    # the dense and keyword routes, fused
    candidates: Positive = 200  # per route, before fusion
    fusion: Literal["minmax", "rrf"] = "minmax"
    dense_weight: float = 0.7  # eval README: 0.3·BM25 + 0.7·dense beat either alone
    keyword_weight: float = 0.3
    dense_min_span: float = 0.05  # min-max: cosines closer than this stay close after scaling
    # min-max: BM25 scores closer than this share of the best stay close (1: scaled by the best alone)
    keyword_min_span_share: float = 0.0
    rrf_k: Count = 60
    # a dialogue's views (recall.views), their cosines pooled by mean or max; the default pair and pool
    # were chosen by 5-fold cross-validation on MADial zh dev (issue #17: R@5 0.481 held out, 0.441 plain)
    view_pool: Literal["mean", "max"] = "max"
    views: list[ViewName] = Field(default_factory=lambda: list(DEFAULT_VIEWS))
    # a dialogue's keyword route: BM25 of the widest view plus this times BM25 of the latest line alone
    keyword_latest: float = Field(default=0.5, ge=0.0)
    # a dialogue's views lose this times the mean query vector of everyday chat, so a memory that matches
    # every chat no longer leads each one (recall.hubs: MADial dev R@5 zh .500 → .532, en .461 → .517). 0: off
    chat_weight: float = Field(default=0.75, ge=0.0)
    # bonuses on the best fused candidates (0 turns a bonus off)
    rerank_depth: Count = 100  # how many of the best fused candidates the bonuses may reorder
    speaker_weight: float = 0.2  # the query names someone who took part in the memory
    # in a group, a member's line that names the one asked about gains this times speaker_weight
    mention_weight: float = Field(default=0.5, ge=0.0)
    # in a group, a fact about another member than the one asked about keeps this share of its score:
    # 小雨喜欢吃辣 does not answer 小雨雨喜欢吃什么 (1 turns this off)
    other_person_weight: float = Field(default=0.5, ge=0.0, le=1.0)
    # a dialogue's recall (recall.views): a kept memory that ends on a bad feeling (teased, scolded, let down)
    # loses this, unless the line asks how the user felt (recall.hurts: MADial dev R@5 zh .532 → .571, en
    # .517 → .555; chosen on halves of the zh dialogues). 0: off
    hurt_weight: float = Field(default=0.2, ge=0.0)
    # 我当时什么心情: the asker's lines that say a feeling gain this (recall.feelings)
    feeling_weight: float = Field(default=0.2, ge=0.0)
    # 那家店叫什么名字: lines that give a name (“巴渝老灶”, 叫团子) gain this (recall.names)
    name_weight: float = Field(default=0.2, ge=0.0)
    # 我喜欢吃什么: lines and facts that say a like of the sign asked (not 不喜欢) gain this (recall.polarity)
    polarity_weight: float = Field(default=0.2, ge=0.0)
    # in a group, a named person's memories are also searched by the index's speaker field (issue #13)
    speaker_route: bool = True
    time_weight: float = 0.3  # the memory's time lies in the span the query's time words name (+0.013)
    # a when-question: memories naming a time gain time_weight × the share of candidates naming none
    time_when: bool = False
    time_about: bool = True  # the time test also reads the memory's own time words (recall.timerange)
    # a question naming a time also reranks the fused candidates said in it (or naming it) among the next
    # this many below rerank_depth: 'what did Maria share on 16 June' (issue #17: LoCoMo dev R@10 .808 →
    # .812, no conversation lower; MADial, probes, peer unchanged). 0: off
    time_reach: int = Field(default=300, ge=0)
    neighbour_weight: float = 0.5  # times the best fused score among the chunk's neighbours in the window
    neighbour_turns: Count = 2  # how far either side a neighbour may sit
    # asked for several things (what books has John read, 她去过哪些地方: recall.many), a chunk takes this
    # share of its neighbour support: the answers are scattered mentions, not one stretch of talk (LoCoMo
    # dev multi-hop R@10 .516 → .530, overall .814 → .817). 1 turns this off
    many_neighbour_share: float = Field(default=0.6, ge=0.0, le=1.0)
    # own-turn evidence, for chunks indexed with chunk.own_vector (recall.anchor; off: LoCoMo's first hit
    # drops, README): the best candidates gain this times how well the query matches their own line alone
    anchor_weight: float = 0.0
    anchor_depth: Count = 20
    # a chunk that only carries, as context, a turn whose own line matches as well ranks below that turn
    anchor_demote: bool = False
    # a chunk whose context line matches the query own_floor_margin better by itself than its own line
    # does (SPAN for the same speaker's next line) goes below that line's chunk: the reply after a
    # statement no longer leads it (recall.anchor.carriers; chunks indexed with chunk.own_vector; not in
    # a group). mem0 peer Hit@1 .833 → .883, LoCoMo dev Hit@1 unchanged (issue #17, README)
    carriers: bool = True
    # the own line leads (recall.anchor.floored; chunks indexed with chunk.own_vector): among the best
    # own_floor dense candidates, a chunk whose line alone matches the query better than its context does
    # scores that, when its context turns' own lines match at least own_floor_margin less and it does not
    # ask; not in a group. mem0 peer Hit@1 .667 → .833, LoCoMo/MADial unchanged (issue #17, README). 0: off
    own_floor: int = Field(default=200, ge=0)
    own_floor_margin: float = 0.02
    events_lend: bool = True  # an event whose turns are candidates lifts them and steps aside (recall.units)
    # ours (issue #13): the share of its fused score a chunk of chatter keeps (哈哈, +1, 早, 晚安霓霓);
    # it gets no speaker bonus (its neighbours still gain from it). 1 turns this off
    chatter_weight: float = 0.1
    # ours (issue #13): a closed fact (valid_to: superseded, called off) and the message it alone came from
    # lose this, unless the question asks about the past (以前, 原来, before: recall.validity). 0 turns it off
    closed_weight: float = 0.3
    # ours (issue #13, recall.latest): a question about a time to come lifts each speaker's newest line
    # that arranges it (九点集合, 改去临安) to the best place of their lines naming that time
    latest_plans: bool = True
    # ours (issue #13, recall.latest): a question about how a thing ended (最后, 最终, 到底, 改到哪) adds
    # this to lines that change or settle an arrangement (改到, 换成, 定了, 取消). 0 turns it off
    change_weight: float = 0.35
    # ours (issue #13): a who-question (是谁说…, 谁家的狗…) adds this times the share of its words a line says
    who_weight: float = 0.3
    # ours (issue #13): a group question naming a member who is not the caller (你认识霓霓吗) reaches that
    # member's global profile, which holds their self-statements only (seed 002 §3.11), in a group they spoke in.
    # Off by default: that profile gathers what they said in every group, so a word said in one group would
    # reach another's recall (the group's own profile of them answers there); on for one community's groups
    absent_profiles: bool = False
    # routes beyond dense + keyword, added to the fused candidates by weight (0 turns a route off)
    route_candidates: Count = 50  # per extra route, and the fused candidates they are added to
    entity_weight: float = 0.2  # names and aliases the query mentions (seed 002 §3.12)
    expand_weight: float = 0.0  # 联想词 as a keyword route (seed 000 §10); off until it helps on eval
    expand_words: Count = 30
    tier_weight: float = 0.0  # seed 001 §2.3: tag match > partial tag > content word > partial content
    # seed 001 §2.3 gives the tiers as priorities: "priority" orders by tier first, the score within a tier
    tiers: Literal["bonus", "priority"] = "bonus"
    graph_weight: float = 0.5  # neighbours along links, × 1/distance (seed 004 §12.3)
    # seed 004 §12.3.2 mode: auto (causal words 2 hops, relation words 1), fast (never), deep (always)
    graph_mode: Literal["auto", "fast", "deep"] = "auto"
    # seed 004 §12.3.2: in auto mode, a best hit whose similarity is below this expands one hop anyway
    graph_auto_below: float = 0.7
    graph_depth: int | None = Field(default=None, ge=0)  # hops asked for (the tools' expand_depth); None: the mode's
    graph_max_depth: Count = 2
    # a second round from the first round's best hits (recall.bridge), when the graph mode would widen
    bridge_weight: float = 0.0
    bridge_seeds: Count = 3
    bridge_words: Count = 8
    graph_seeds: Count = 5
    graph_limit: Count = 20  # new memories per hop
    # the final score: a weight per feature; relevance alone keeps the fused relevance with its bonuses
    score_weights: dict[FeatureName, float] = Field(default_factory=lambda: dict(_RELEVANCE_ONLY))
    roulette: bool = False  # seed 001 §2.4.4: sample among the best instead of always the top
    roulette_pool: Count = 20
    roulette_seed: int | None = None

    @field_validator("score_weights", mode="before")
    @classmethod
    def _weights(cls, value: Any) -> Any:
        """Seed 001 §2.4.2's ratios: each finite and not negative, the whole summing to 1 (so a score stays
        on the 0–1 scale ``score_threshold`` is on); seed 001's names are read as the features they are."""
        if not isinstance(value, Mapping):
            return value
        known = ", ".join([*FEATURES, *SEED001_NAMES])
        weights: dict[str, float] = {}
        for raw, weight in value.items():
            name = SEED001_NAMES.get(str(raw), str(raw))
            if name not in FEATURES:
                raise ValueError(f"score_weights: no feature named {raw!r}; known: {known}")
            if name in weights:
                raise ValueError(f"score_weights: {raw!r} names {name!r} a second time")
            if isinstance(weight, bool) or not isinstance(weight, int | float):
                raise ValueError(f"score_weights: {raw!r} must be a number, got {weight!r}")
            if not (math.isfinite(weight) and weight >= 0):
                raise ValueError(f"score_weights: {raw!r} must be finite and not negative, got {weight}")
            weights[name] = float(weight)
        total = math.fsum(weights.values())
        if total <= 0:
            raise ValueError("score_weights need at least one positive weight")
        if abs(total - 1.0) > _SUM_TOLERANCE:
            parts = " + ".join(f"{name} {weight:g}" for name, weight in weights.items())
            raise ValueError(f"score_weights are ratios and must sum to 1, got {parts} = {total:g}")
        return weights

    @property
    def scores(self) -> bool:
        """Whether the final score weighs more than the fused relevance."""
        return self.score_weights != _RELEVANCE_ONLY


# the named recipes a recipe may start from: each the fields it changes from the defaults
NAMED_RECIPES: dict[str, dict[str, Any]] = {
    "relevance": {},  # the fused relevance with its bonuses
    "seed004": {"score_weights": SEED004_WEIGHTS},  # seed 004 §5.2
    "seed001": {"score_weights": SEED001_WEIGHTS, "tiers": "priority"},  # seed 001 §2.3, §2.4.2
}


def expand_recipe(
    fields: Mapping[str, Any], user: Mapping[str, Mapping[str, Any]], seen: tuple[str, ...] = ()
) -> dict[str, Any]:
    """A recipe's fields laid over those of the named recipe it starts from (built-in or the user's)."""
    name = str(fields.get("recipe", "relevance"))
    if name in NAMED_RECIPES:
        base = dict(NAMED_RECIPES[name])
    elif name in user:
        if name in seen:
            raise ValueError(f"recipe {name!r} starts from itself")
        base = expand_recipe(user[name], user, (*seen, name))
        base.pop("recipe", None)
    else:
        known = ", ".join([*NAMED_RECIPES, *user])
        raise ValueError(f"no recipe named {name!r}; known: {known}")
    return {**base, **fields}
