"""我喜欢吃什么 asks for likes: the lines and facts that say one lead those that say a dislike (issue 17, a
companion month tried as an app would: 木木不喜欢吃辣 answered it first)."""

from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path

from huiyi import Memory
from huiyi.config import Config
from huiyi.providers.embed import HashEmbedder

T0 = datetime(2025, 2, 11, 12, 0)
LINES = [
    "今天中午吃了火锅，我最喜欢吃火锅了",
    "麻油蒜泥，但是我不喜欢香菜",
    "我其实不喜欢吃辣",
    "但是不喜欢榴莲，闻着就难受",
]


def test_a_question_about_likes_lifts_likes_and_one_about_dislikes_dislikes(tmp_path: Path) -> None:
    config = Config(worker={"enabled": False}, recall={"reinforce": False})
    with Memory(tmp_path, embedder=HashEmbedder(256), config=config, clock=lambda: T0 + timedelta(days=30)) as memory:
        messages = [{"id": f"m{i}", "text": text, "time": T0 + timedelta(minutes=i)} for i, text in enumerate(LINES)]
        memory.add(messages, agent="祈煜", person="木木", index=True)
        memory.flush(agent="祈煜", person="木木")

        def lifted(query: str) -> set[str]:
            found = memory.recall(query, agent="祈煜", person="木木", explain=True, limit=20)
            given = found.info["bonuses"]
            return {hit.text for hit in found.hits if "polarity" in given.get(hit.id, {})}

        likes = lifted("我喜欢吃什么")
        assert likes and all("不喜欢" not in text for text in likes) and any("火锅" in text for text in likes)
        dislikes = lifted("我有什么不喜欢吃的")
        assert {"香菜", "辣", "榴莲"} <= {word for text in dislikes for word in ("香菜", "辣", "榴莲") if word in text}
        assert all("最喜欢吃火锅" not in text for text in dislikes)
        assert not lifted("我喜欢你")  # no taste is asked


def test_a_question_about_the_askers_likes_lifts_no_like_told_of_someone_else(tmp_path: Path) -> None:
    # her mother's like of durian (她喜欢吃榴莲) led 我喜欢吃什么, above 小满's own 我最喜欢吃火锅
    config = Config(worker={"enabled": False}, recall={"reinforce": False})
    lines = ["我最喜欢吃火锅", "我妈今天打电话，说她最近迷上了广场舞，还说她喜欢吃榴莲", "我超爱喝奶茶的"]
    with Memory(tmp_path, embedder=HashEmbedder(256), config=config, clock=lambda: T0 + timedelta(days=30)) as memory:
        messages = [{"id": f"m{i}", "text": text, "time": T0 + timedelta(minutes=i)} for i, text in enumerate(lines)]
        memory.add(messages, agent="祈煜", person="小满", index=True)

        def lifted(query: str) -> set[str]:
            found = memory.recall(query, agent="祈煜", person="小满", explain=True, limit=20)
            given = found.info["bonuses"]
            return {hit.text for hit in found.hits if "polarity" in given.get(hit.id, {})}

        mine = lifted("我喜欢吃什么")
        assert any("火锅" in text for text in mine) and not any("榴莲" in text for text in mine)
        assert any("榴莲" in text for text in lifted("我妈喜欢吃什么"))  # asked of Mum, hers is lifted
