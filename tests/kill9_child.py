"""The child of ``test_kill9``: a bot process doing one thing until it is killed, printing what returned.

    python kill9_child.py STORE MODE START [NAME]

``STORE`` is a directory (SQLite) or a PostgreSQL DSN. Modes:

- ``add``: messages ``{NAME}{START}``, ``{NAME}{START+1}``… one per ``add``, over two private chats and
  a group (texts the rule extractor reads facts from, ids and texts fixed by the index); each id is
  printed once its ``add`` returned: acknowledged. With ``recall`` after ``add`` it also recalls after each
  add and prints ``error …`` for any error a call raised (the process goes on).
- ``forget``: erases the person ``bob``; prints ``done`` once ``forget_person`` returned.
- ``consolidate``: consolidates and summarises every scope; prints ``done`` when it returned.

The background indexer and the extraction worker run (folds of two rounds, so extraction is frequent).
"""

from __future__ import annotations

import sys
from datetime import datetime, timedelta

from huiyi import Memory
from huiyi.config import Config

AGENT = "bot"
CHATS: list[dict[str, str]] = [{"person": "bob"}, {"person": "amy"}, {"space": "g1"}]
T0 = datetime(2024, 3, 1, 9)
FOODS = ["火锅", "烧烤", "寿司", "拉面", "披萨", "饺子", "包子"]
CITIES = ["上海", "南京", "杭州", "成都", "广州"]
MEMBERS = ["bob", "amy", "carl"]


def config(worker: bool = True) -> Config:
    return Config(
        embed={"provider": "hash", "dim": 32},
        ingest={"index": "background"},
        worker={"enabled": worker, "poll_seconds": 0.05, "lease_seconds": 1, "maintenance_minutes": 0},
        window={"keep_min": 2, "fold_at": 4},
    )


def chat_of(index: int) -> dict[str, str]:
    return CHATS[(index // 3) % len(CHATS)]  # runs of 3 messages in each conversation


def message(index: int, name: str) -> dict[str, object]:
    """The index-th message: its id, text, time, role and speaker are fixed by the index alone."""
    kind = index % 4
    if kind == 0:
        text = f"我喜欢吃{FOODS[index % len(FOODS)]}，第{index}次说 {name}{index}"
    elif kind == 1:
        text = f"我住在{CITIES[index % len(CITIES)]}，消息 {name}{index}"
    elif kind == 2:
        text = f"明天下午三点去看电影吧 {name}{index}"
    else:
        text = f"好的，记住了 {name}{index}"
    said: dict[str, object] = {"id": f"{name}{index}", "text": text, "time": T0 + timedelta(minutes=7 * index)}
    if kind == 3:
        said["role"] = "assistant"
    elif "space" in chat_of(index):
        said["speaker"] = MEMBERS[index % len(MEMBERS)]
    return said


def main() -> None:
    store, mode, start = sys.argv[1], sys.argv[2], int(sys.argv[3])
    name = sys.argv[4] if len(sys.argv) > 4 else "m"
    memory = Memory(store, config=config())
    print("open", flush=True)
    if mode == "forget":
        memory.forget_person("bob", agent=AGENT)
        print("done", flush=True)
        return
    if mode == "consolidate":
        for chat in CHATS:
            memory.consolidate(agent=AGENT, **chat)
            memory.summarize(T0.date(), agent=AGENT, **chat)
        print("done", flush=True)
        return
    index = start
    while True:
        chat = chat_of(index)
        try:
            memory.add(message(index, name), agent=AGENT, **chat)
        except Exception as exc:
            print(f"error add {type(exc).__name__}: {exc}".replace("\n", " "), flush=True)
            continue
        print(f"{name}{index}", flush=True)
        if mode == "add+recall":
            try:
                memory.recall(f"{FOODS[index % len(FOODS)]} {name}", agent=AGENT, **chat)
            except Exception as exc:
                print(f"error recall {type(exc).__name__}: {exc}".replace("\n", " "), flush=True)
        index += 1


if __name__ == "__main__":
    main()
