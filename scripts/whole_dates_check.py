#!/usr/bin/env python3
"""Whole dates in digits read without jionlp (``times_zh._whole_date``) against jionlp's own answers, and
what the fast path saves on a message of many dates.

Every day of 1900–2099 as 2024年3月5日, a tenth of them in three more forms (号, zero-padded), each
against a different ``now``: any difference is printed and fails the run (~100 s of jionlp calls). Then
the CPU of ``find_time_phrases`` on a 20 000-character message of ~1,800 distinct dates.

    python scripts/whole_dates_check.py
"""

from __future__ import annotations

import random
import sys
import time
from datetime import date, datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from huiyi.text import times_zh
from huiyi.text.times import find_time_phrases

FORMS = ["{y}年{m}月{d}日", "{y}年{m:02d}月{d:02d}号", "{y}年{m}月{d:02d}日", "{y}年{m:02d}月{d}号"]
NOWS = [datetime(2024, 6, 1, 12, 0), datetime(1999, 12, 31, 23, 59, 59), datetime(2031, 2, 28, 8, 5)]


def compare(rng: random.Random) -> int:
    checked = differ = 0
    day = date(1900, 1, 1)
    while day <= date(2099, 12, 31):
        forms = FORMS if rng.random() < 0.1 else FORMS[:1]
        for form in forms:
            phrase, now = form.format(y=day.year, m=day.month, d=day.day), rng.choice(NOWS)
            fast, slow = times_zh._whole_date(phrase), times_zh._jionlp(phrase, now)
            checked += 1
            if fast != slow:
                differ += 1
                print("differ:", phrase, now, fast, slow)
        day += timedelta(days=1)
    print(f"{checked} phrases compared with jionlp, {differ} differ")
    return differ


def message_of_dates(rng: random.Random, now: datetime) -> str:
    forms, parts, size = [FORMS[0], "{y}-{m:02d}-{d:02d}", "{y}年{m}月{d}号"], [], 0
    for i, offset in enumerate(rng.sample(range(-4000, 4000), 2600)):
        day = (now + timedelta(days=offset)).date()
        piece = forms[i % 3].format(y=day.year, m=day.month, d=day.day) + "，"
        if size + len(piece) > 20_000:
            break
        parts.append(piece)
        size += len(piece)
    return "".join(parts)


def timed(text: str, now: datetime) -> tuple[float, list[object]]:
    started = time.process_time()
    spans = find_time_phrases(text, now)
    return time.process_time() - started, [(s.phrase, s.start, s.end) for s in spans]


def main() -> None:
    rng = random.Random(1)
    differ = compare(rng)
    now = NOWS[0]
    text = message_of_dates(rng, now)
    fast, spans = timed(text, now)
    times_zh._whole_date = lambda phrase: None  # every phrase through jionlp, as before
    slow, before = timed(text, now)
    print(f"{len(text)} characters, {len(spans)} dates: {slow:.3f} s CPU through jionlp, {fast:.3f} s now")
    sys.exit(1 if differ or spans != before else 0)


if __name__ == "__main__":
    main()
