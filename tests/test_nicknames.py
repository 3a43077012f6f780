"""Nicknames of a member's name: forms on the surname only where the first character is one (大川 is no 大
+ 川: 大哥, 大姐 and 老大 are everyone's, and 老大订了几个人的桌 lifted 大川's lines; issue 17, a group day)."""

from __future__ import annotations

import pytest

from huiyi.text.nicknames import nickname_forms


@pytest.mark.parametrize("name", ["大川", "二狗", "天天向", "大白兔"])
def test_a_name_without_a_surname_gets_no_surname_forms(name: str) -> None:
    forms = nickname_forms(name)
    assert not {f for f in forms if f[0] == name[0] or f[-1] == name[0]} - {name[1:]}, forms


def test_a_name_with_a_surname_keeps_them() -> None:
    assert {"陈哥", "老陈", "川哥", "大川"} <= set(nickname_forms("陈大川"))
    assert {"川哥", "小川", "阿川"} <= set(nickname_forms("大川"))
