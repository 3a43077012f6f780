#!/usr/bin/env python3
"""Kind → instance expansion from a scope's own words: could it find multi-hop answers (issue #17)?

"What instruments does Melanie play?" is answered by "…running, reading, or playing my violin": the
question names a kind, the turn an instance. Three measurements, none fitted and no word list used; a
scope's vocabulary is the content words its turns hold (the speakers' names dropped), each embedded
alone (one word a text, cached in ``--words-cache``):

    PYTHONPATH=src python scripts/kind_expansion.py words DATA QUESTIONS.jsonl --words-cache W.sqlite
    PYTHONPATH=src python scripts/kind_expansion.py recall DATA --embed-cache E.sqlite --words-cache W.sqlite \
        [--variants base,kinds3@0.3,forms@0.3,cilin@0.3]
    PYTHONPATH=src python scripts/kind_expansion.py scan LOCOMO --embed-cache E.sqlite

DATA is a LoCoMo file (``locomo_dev.json``) or a probe file (``tests/data/probes_*.json``, Chinese);
QUESTIONS.jsonl what its ``huiyi eval … --questions`` wrote (the gold ids' ranks); E.sqlite a copy of
that eval's ``--embed-cache``. A question word's expansion is, by kind:

- ``kindsN``: the N vocabulary words nearest it by the embedder, its other forms excepted;
- ``forms``: its other English forms in the vocabulary (a crude suffix stem: paint, painted, painting);
- ``cilin``: the vocabulary words sharing a HIT Cilin 词群 with it (乐器 → 小提琴, 吉他: one group).

``wh:KIND`` widens only the noun the question asks a kind of (what *board games*…, 什么*乐器*:
:func:`kind_asked`); ``gold:KIND`` (``recall`` only) keeps only the expansion words a gold turn holds, an
oracle: what the route could do at best with that expansion.

``words`` counts, per category: gold turns holding no question word but an expansion word (reachable
only by it), how many of those the eval misses (rank ≥ 10), and the non-gold turns the same expansion
newly matches; ``lift`` is the share of gold turns it newly matches over the share of non-gold ones (1:
no better than chance). ``recall`` recalls every question through the real pipeline per variant, the
keyword route's BM25 plus ``w`` times the BM25 of the expansion words (no ``@w``: the words join the
query as its own). ``scan`` ranks every LoCoMo turn's own-line vector by the question's vector, by each
content word's alone (``--wh``: the noun asked a kind of), and by the question's cosine plus ``w`` times
the words' best or mean cosine. The README (Quality) has the figures and the commands that made them.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from collections import defaultdict
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from huiyi.config import Config
from huiyi.evaluation import fusion_fit as ff
from huiyi.evaluation.probes import Case, ProbeSet
from huiyi.evaluation.runner import DiskCachedEmbedder
from huiyi.model import MemoryKind, Scope
from huiyi.providers.embed import Embedder, make_embedder
from huiyi.recall import routes
from huiyi.store.base import RouteHits, ScoredId, Terms
from huiyi.text import tokens
from huiyi.text.dictionary import is_associate_form

Array = np.ndarray[Any, Any]
SUFFIX = re.compile(r"(?:'s|s|es|ed|ing|er|ers|ly|ment|ments|ion|ions|al)$")
APART = "5"  # LoCoMo's adversarial questions: no answer in the chat


def stem(word: str) -> str:
    """A crude English stem, only to tell a word's forms (paint, painted, painting) from its kinds."""
    word = word.replace("’", "'")
    for _ in range(2):
        cut = SUFFIX.sub("", word)
        if len(cut) < 3:
            break
        word = cut
    return word.rstrip("e")


def same_form(a: str, b: str) -> bool:
    if tokens.has_cjk(a) or tokens.has_cjk(b):
        return False
    sa, sb = stem(a), stem(b)
    return sa == sb or (min(len(sa), len(sb)) >= 4 and (sa.startswith(sb) or sb.startswith(sa)))


def load(path: str) -> tuple[ProbeSet, ff.Source]:
    if json.loads(Path(path).read_text(encoding="utf-8")).__class__ is list:  # LoCoMo: a list of conversations
        source = ff.locomo_source(path, 5)
    else:
        source = ff.probe_source(path, 0, 1)
    return source.probes, source


# the noun phrase an interrogative asks a kind of, up to its verb (what board games has…, which city did…,
# what kind of art…), else its first word; 什么乐器, 哪种花: the word after it
WHAT_KIND = re.compile(
    r"\b(?:what|which)\s+(?:(?:kinds?|types?|sorts?)\s+of\s+)?"
    r"(?:((?:[a-z'-]+\s+){0,2}?[a-z'-]+)\s+(?:has|have|had|does|do|did|is|are|was|were)\b|([a-z'-]+))"
    r"|(?:什么|哪种|哪些|哪类|哪样|哪个|哪一种)([\u4e00-\u9fff]{2,4})",
    re.IGNORECASE,
)


def kind_asked(query: str) -> list[str]:
    """The words of what a question asks a kind of (for Chinese, the first word after 什么), stop words never.

    >>> kind_asked("What board games has Nate played?"), kind_asked("何夕教的是什么乐器")
    (['board', 'games'], ['乐器'])
    """
    out: list[str] = []
    for phrase, first, chinese in WHAT_KIND.findall(query):
        found = tokens.words(phrase or first) if not chinese else tokens.words(chinese)[:1]
        out += [w for w in found if w not in tokens.STOPWORDS]
    return out


def names_of(case: Case) -> set[str]:
    return {m.speaker.lower() for m in case.messages if m.speaker}


def asked_words(query: str, names: set[str]) -> list[str]:
    return [w for w in tokens.content_words(query, drop=names) if not w.isdigit()]


class Vocabulary:
    """A case's content words, each with its vector (one word a text), and the expansions of a word."""

    def __init__(self, words: list[str], embedder: Embedder) -> None:
        self.words = words
        self.embedder = embedder
        self.matrix = embed(embedder, words)
        self._cilin: Any = None

    def nearest(self, word: str, n: int) -> list[str]:
        similarity = embed(self.embedder, [word])[0] @ self.matrix.T
        out: list[str] = []
        for i in np.argsort(-similarity):
            if self.words[i] != word and not same_form(self.words[i], word):
                out.append(self.words[i])
            if len(out) >= n:
                break
        return out

    def forms(self, word: str) -> list[str]:
        return [w for w in self.words if w != word and same_form(w, word)]

    def cilin(self, word: str) -> list[str]:
        if self._cilin is None:
            from huiyi.text.cilin import Cilin

            table = Cilin.load()
            groups: dict[str, set[str]] = defaultdict(set)
            for other in self.words:
                for code in table.codes(other):
                    groups[code[:5]].add(other)
            self._cilin = (table, groups)
        table, groups = self._cilin
        return sorted({w for code in table.codes(word) for w in groups[code[:5]] if w != word})

    def expand(self, kind: str, asked: Sequence[str]) -> list[str]:
        out: list[str] = []
        for word in asked:
            if tokens.has_cjk(word) and not is_associate_form(word):
                continue
            if kind.startswith("kinds"):
                out += self.nearest(word, int(kind[5:] or 3))
            elif kind == "forms":
                out += self.forms(word)
            elif kind == "cilin":
                out += self.cilin(word)
            else:
                raise SystemExit(f"unknown expansion {kind!r}")
        # a Chinese word of one character (下, 内) is anything's neighbour: only 2–4 characters either side
        kept = [w for w in dict.fromkeys(out) if w not in asked]
        return [w for w in kept if not tokens.has_cjk(w) or is_associate_form(w)]


def embed(embedder: Embedder, words: Sequence[str]) -> Array:
    if not words:
        return np.zeros((0, embedder.dim), dtype=np.float32)
    return np.vstack([np.asarray(embedder.embed_queries(words[i : i + 256])) for i in range(0, len(words), 256)])


def vocabulary(case: Case, embedder: Embedder) -> Vocabulary:
    names = names_of(case)
    return Vocabulary(sorted({w for m in case.messages for w in tokens.content_words(m.text, drop=names)}), embedder)


def words_command(args: argparse.Namespace) -> None:
    probes, _ = load(args.data)
    embedder = DiskCachedEmbedder(make_embedder(Config().embed), args.words_cache)
    ranks = {}
    for line in Path(args.questions).read_text(encoding="utf-8").splitlines():
        if line.strip():
            row = json.loads(line)
            ranks[row["probe"]] = row["gold_ranks"]
    kinds = args.kinds.split(",")
    counts: dict[str, dict[str, defaultdict[str, float]]] = {
        k: {name: defaultdict(float) for name in ("gold", "new", "new missed", "other", "other new", "questions")}
        for k in kinds
    }
    shown = 0
    for case in probes.cases:
        names = names_of(case)
        held = {m.id: set(tokens.content_words(m.text, drop=names)) for m in case.messages}
        words = vocabulary(case, embedder)
        for probe in case.probes:
            asked = asked_words(probe.query, names)
            if probe.group == APART or not asked:
                continue
            for kind in kinds:
                asked_here = [w for w in kind_asked(probe.query) if w in asked] if kind.startswith("wh:") else asked
                found = set(words.expand(kind.removeprefix("wh:"), asked_here))
                c = counts[kind]
                c["questions"][probe.group] += 1
                for turn, turn_words in held.items():
                    new = not turn_words & set(asked) and bool(turn_words & found)
                    if turn in probe.gold:
                        rank = ranks.get(probe.id, {}).get(turn)
                        c["gold"][probe.group] += 1
                        c["new"][probe.group] += new
                        c["new missed"][probe.group] += new and (rank is None or rank >= 10)
                    else:
                        c["other"][probe.group] += 1
                        c["other new"][probe.group] += new
                if shown < args.show and kind == kinds[0] and found:
                    shown += 1
                    gold = {g: sorted(held.get(g, set()) & found) for g in probe.gold}
                    print(f"{probe.query} | {asked} → {sorted(found)[:15]} | gold holds {gold}")
    for kind, c in counts.items():
        print(f"== {kind}")
        for counter in c.values():
            counter["all"] = sum(counter.values())
        for group in sorted(c["gold"]):
            gold_share = c["new"][group] / c["gold"][group]
            other_share = c["other new"][group] / max(c["other"][group], 1)
            print(
                f"  {group}: gold turns {c['gold'][group]:.0f}, new {c['new'][group]:.0f} "
                f"(missed now {c['new missed'][group]:.0f}); non-gold newly matched "
                f"{c['other new'][group] / c['questions'][group]:.1f} a question; "
                f"lift {gold_share / other_share if other_share else float('nan'):.2f}"
            )


def widened_keyword(
    original: Callable[..., routes.Hits], extra: Callable[[Sequence[str]], list[str]], weight: float
) -> Callable[..., routes.Hits]:
    """The keyword route, each memory's BM25 plus ``weight`` times its BM25 for the expansion words."""

    def keyword(ask: routes.Ask, limit: int, unnamed: Sequence[str] = ()) -> routes.Hits:
        own = original(ask, limit, unnamed)
        words = extra(ask.terms.words)
        if not words:
            return own
        more = ask.store.search_keyword(ask.scopes, Terms(words=words), limit)
        scores = {hit.key: hit.score for hit in own.first.hits}
        ids = {hit.key: hit.id for found in (own.first, more) for hit in found.hits}
        for hit in more.hits:
            scores[hit.key] = scores.get(hit.key, 0.0) + weight * hit.score
        hits = sorted((ScoredId(ids[k], v, k) for k, v in scores.items()), key=lambda h: (-h.score, h.key))
        return routes.Hits(searches=[(RouteHits(hits[:limit], own.first.ms), 1.0)], ms=own.ms)

    return keyword


def recall_command(args: argparse.Namespace) -> None:
    _, source = load(args.data)
    config = Config()
    bench = ff.Workbench(config, DiskCachedEmbedder(make_embedder(config.embed), args.embed_cache), [source])
    bench.open()
    words_embedder = DiskCachedEmbedder(make_embedder(config.embed), args.words_cache)
    words = {case_id: vocabulary(case, words_embedder) for (_, case_id), case in bench._cases.items()}
    held = {
        case_id: {m.id: set(tokens.content_words(m.text, drop=names_of(case))) for m in case.messages}
        for (_, case_id), case in bench._cases.items()
    }
    original_terms, original_keyword = routes.query_terms, routes.keyword
    for variant in args.variants.split(","):
        kind, _, weight = variant.partition("@")
        per: dict[str, list[list[float]]] = defaultdict(list)
        started = time.perf_counter()
        for query in bench.queries:
            vocab, names, gold = words[query.case], names_of(bench._cases[query.source, query.case]), query.probe.gold
            # gold:KIND keeps only the words a gold turn holds: what the route could do at best
            answers = set().union(*(held[query.case].get(g, set()) for g in gold)) if kind.startswith("gold:") else None
            # wh:KIND widens only the noun the question asks a kind of
            only = set(kind_asked(query.probe.query)) if kind.removeprefix("gold:").startswith("wh:") else None

            def extra(
                asked: Sequence[str],
                vocab: Vocabulary = vocab,
                names: set[str] = names,
                answers: Any = answers,
                only: Any = only,
                kind: str = kind.removeprefix("gold:").removeprefix("wh:"),
            ) -> list[str]:
                wanted = [w for w in asked if not w.isdigit() and w not in names and (only is None or w in only)]
                return [w for w in vocab.expand(kind, wanted) if answers is None or w in answers]

            if weight:
                routes.keyword = widened_keyword(original_keyword, extra, float(weight))
            elif kind != "base":

                def terms(text: str, drop: Sequence[str] = (), names: Any = None, extra: Any = extra) -> Terms:
                    found = original_terms(text, drop, names)
                    return Terms(words=[*found.words, *extra(found.words)], chars=found.chars)

                routes.query_terms = terms  # type: ignore[assignment]
            try:
                per[query.group].append(ff.query_metrics(bench.ranked(query, config.recall), query.probe.gold))
            finally:
                routes.query_terms, routes.keyword = original_terms, original_keyword
        every = np.array([row for rows in per.values() for row in rows]).mean(axis=0)
        means = dict(zip(ff.METRICS, every, strict=True))
        by_group = " ".join(f"{g}:{np.mean([r[3] for r in per[g]]):.3f}" for g in sorted(per))
        print(
            f"{variant:12} R@1 {means['R@1']:.4f} R@5 {means['R@5']:.4f} R@10 {means['R@10']:.4f} "
            f"Hit@1 {means['Hit@1']:.4f} | R@10 {by_group} | {time.perf_counter() - started:.0f} s",
            flush=True,
        )
    bench.close()


def ranked(turns: list[str], scores: Array) -> list[str]:
    return [turns[i] for i in np.argsort(-scores, kind="stable")]


def scan_command(args: argparse.Namespace) -> None:
    probes, source = load(args.data)
    config = Config()
    embedder = DiskCachedEmbedder(make_embedder(config.embed), args.embed_cache)
    bench = ff.Workbench(config, embedder, [source])
    bench.open()
    weights = [float(w) for w in args.weights.split(",")]
    per: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    outside: defaultdict[str, int] = defaultdict(int)
    by_a_word: defaultdict[str, int] = defaultdict(int)
    for case in probes.cases:
        store = bench._memories[(source.name, case.id)].core.store
        chunks = store.list_memories([Scope.of_space(case.agent, case.id)], kinds=[MemoryKind.CHUNK], limit=100_000)
        own = store.own_vectors(case.agent, [c.id for c in chunks])
        kept = [c for c in chunks if c.id in own and c.sources]
        turns = [c.sources[-1] for c in kept]
        matrix = np.vstack([np.asarray(own[c.id]) for c in kept])
        for probe in case.probes:
            asked = asked_words(probe.query, names_of(case))
            if args.wh:  # only the noun the question asks a kind of; a question without one is scanned whole
                asked = [w for w in kind_asked(probe.query) if w in asked]
            if probe.group == APART or (not asked and not args.wh):
                continue
            gold = list(probe.gold)

            def r10(order: list[str], gold: list[str] = gold) -> float:
                return len(set(order[:10]) & set(gold)) / len(gold)

            question = matrix @ np.asarray(embedder.embed_queries([probe.query])[0])
            by_word = matrix @ embed(embedder, asked).T if asked else np.zeros((len(kept), 1))
            best, mean = by_word.max(axis=1), by_word.mean(axis=1)
            first = ranked(turns, question)
            per[probe.group]["question"].append(r10(first))
            per[probe.group]["best word alone"].append(r10(ranked(turns, best)))
            for w in weights:
                per[probe.group][f"question + {w} best word"].append(r10(ranked(turns, question + w * best)))
                per[probe.group][f"question + {w} mean word"].append(r10(ranked(turns, question + w * mean)))
            tops = [set(ranked(turns, by_word[:, j])[:10]) for j in range(by_word.shape[1])]
            for turn in gold:
                if turn not in first[:10]:
                    outside[probe.group] += 1
                    by_a_word[probe.group] += any(turn in top for top in tops)
    for name in next(iter(per.values())):
        groups = " ".join(f"{g}:{np.mean(per[g][name]):.3f}" for g in sorted(per))
        every = np.mean([x for g in per for x in per[g][name]])
        print(f"{name:26} turn R@10 {every:.4f} | {groups}")
    for group in sorted(outside):
        print(
            f"  {group}: gold turns outside the question's top 10 {outside[group]}, in a word's own {by_a_word[group]}"
        )
    bench.close()


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    commands = parser.add_subparsers(dest="command", required=True)
    words = commands.add_parser("words")
    words.add_argument("data")
    words.add_argument("questions")
    words.add_argument("--words-cache", required=True)
    words.add_argument("--kinds", default="kinds1,kinds3,kinds10,forms,cilin")
    words.add_argument("--show", type=int, default=0, help="print this many questions' expansions")
    recall = commands.add_parser("recall")
    recall.add_argument("data")
    recall.add_argument("--embed-cache", required=True)
    recall.add_argument("--words-cache", required=True)
    recall.add_argument("--variants", default="base,kinds3@0.15,kinds3@0.3,forms@0.3,cilin@0.3")
    scan = commands.add_parser("scan")
    scan.add_argument("data")
    scan.add_argument("--embed-cache", required=True)
    scan.add_argument("--weights", default="0.1,0.2,0.3,0.5")
    scan.add_argument("--wh", action="store_true", help="the words of the kind asked only (what instruments…)")
    args = parser.parse_args(argv)
    {"words": words_command, "recall": recall_command, "scan": scan_command}[args.command](args)


if __name__ == "__main__":
    main(sys.argv[1:])
