"""The recall sections: how recall finds, fuses, reranks and scores memories."""

from __future__ import annotations

from typing import Literal

from huiyi.config._section import Section


class RecallConfig(Section):
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


class RoutesConfig(Section):
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
