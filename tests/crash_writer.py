"""The child of ``test_crash``: adds messages until it is killed, printing each id once ``add`` returned.

    python crash_writer.py STORE START SEED

``STORE`` is a directory (SQLite) or a PostgreSQL DSN. Messages ``m{START}``, ``m{START+1}``… go in
batches of 1-5 to a few conversations (ids and texts fixed by the index, so a resent batch is the same
batch); an id is printed and flushed only after the ``add`` holding it returned: acknowledged.
"""

from __future__ import annotations

import random
import sys
from datetime import datetime, timedelta

from huiyi import Memory
from huiyi.config import Config

AGENT = "crash"
CHATS = [{"person": "bob"}, {"person": "amy"}, {"space": "g1"}]
T0 = datetime(2024, 1, 1)


def chat_of(index: int) -> dict[str, str]:
    return CHATS[(index // 7) % len(CHATS)]  # runs of 7 messages in each conversation


def message(index: int) -> dict[str, object]:
    said: dict[str, object] = {"id": f"m{index}", "text": f"第{index}条消息 message {index}"}
    said["time"] = T0 + timedelta(seconds=index)
    if "space" in chat_of(index):
        said["speaker"] = "amy"
    return said


def main() -> None:
    store, start, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    rng = random.Random(seed)
    config = Config(embed={"provider": "hash", "dim": 32}, worker={"enabled": True})
    memory = Memory(store, config=config)
    print("open", flush=True)
    index = start
    while True:
        chat, size = chat_of(index), rng.randint(1, 5)
        batch = []
        while len(batch) < size and chat_of(index) == chat:
            batch.append(message(index))
            index += 1
        memory.add(batch, agent=AGENT, **chat)
        print(" ".join(str(m["id"]) for m in batch), flush=True)


if __name__ == "__main__":
    main()
