"""Keywords of a text skip its time phrases, however many it holds."""

from __future__ import annotations

import doctest

from huiyi.text import keywords as keywords_module
from huiyi.text.keywords import keywords


def test_doctests() -> None:
    assert doctest.testmod(keywords_module).failed == 0


def test_words_inside_thousands_of_skipped_spans_are_found_in_linear_time() -> None:
    # every word was checked against every skipped span: 30 000 time phrases meant 10⁹ checks
    text = "下周去爬山，" * 30_000
    assert keywords([text]) == ["爬山"]
    skips = [(6 * i + 3, 6 * i + 5) for i in range(30_000)]  # each 爬山
    assert "爬山" not in keywords([text], skip_spans=[skips])


def test_an_ending_that_only_agrees_is_no_keyword() -> None:
    # 叫我霓霓就行, 随便买一个就行: 就行 says "that will do", never what a day was about
    assert "就行" not in keywords(["大家好，我是苏霓，大家叫我霓霓就行", "你随便买一个就行"])
    assert "就好" not in keywords(["你开心就好，别想太多了"])
    assert "急诊科" in keywords(["我是急诊科护士，叫我霓霓就行"])
