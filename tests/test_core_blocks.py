"""Core blocks: Markdown files with YAML front matter, hot-reloaded, edited atomically within limits."""

from __future__ import annotations

import os
import stat
import threading
from datetime import datetime
from pathlib import Path

import pytest

from huiyi.errors import InvalidInput, NotFound
from huiyi.flows import core_blocks
from huiyi.flows.core_blocks import CoreBlocks
from huiyi.recall.render import ContextParts, render

PERSONA = """---
label: persona
description: 祈煜是谁   # shown by templates that want it
order: 1
---
我是祈煜，一名画家。
"""

HUMAN = """---
# 关于木木
limit: 40
order: 2
---

木木是一名学生。
木木喜欢咖啡。
"""


def write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


def touch_later(path: Path) -> None:
    """Move the mtime on, so an edit of the same size is seen even on a coarse-clocked file system."""
    info = path.stat()
    os.utime(path, ns=(info.st_atime_ns, info.st_mtime_ns + 2_000_000_000))


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    blocks = tmp_path / "blocks"
    blocks.mkdir()
    write(blocks, "persona.md", PERSONA)
    write(blocks, "human.md", HUMAN)
    write(blocks, "words.md", "---\n---\n“深海里也有光。”\n")  # empty front matter: label from the stem, no order
    write(blocks, "README.md", "# 这个目录放核心记忆块\n没有 YAML 头的文件不是记忆块。\n")
    return blocks


def labels(blocks: CoreBlocks) -> list[str]:
    return [block.label for block in blocks.blocks()]


# ---------------------------------------------------------------- loading


def test_loads_every_block_with_front_matter_in_order(folder: Path) -> None:
    blocks = CoreBlocks(folder)
    loaded = blocks.blocks()
    assert [(b.label, b.text) for b in loaded] == [
        ("persona", "我是祈煜，一名画家。"),
        ("human", "木木是一名学生。\n木木喜欢咖啡。"),
        ("words", "“深海里也有光。”"),
    ]
    assert loaded[0].meta == {"label": "persona", "description": "祈煜是谁", "order": 1}
    assert loaded[1].meta == {"limit": 40, "order": 2}
    assert blocks.errors == {}
    assert blocks.get("human").text == "木木是一名学生。\n木木喜欢咖啡。"
    assert blocks.path("words") == folder / "words.md"


def test_blocks_without_order_sort_by_label_after_the_ordered(tmp_path: Path) -> None:
    for name in ("notes", "character", "task"):
        write(tmp_path, f"{name}.md", f"---\ndescription: {name}\n---\n{name} body\n")
    write(tmp_path, "zzz.md", "---\nlabel: persona\norder: -1\n---\n人设\n")
    assert labels(CoreBlocks(tmp_path)) == ["persona", "character", "notes", "task"]


def test_blocks_render_in_full_into_the_context(folder: Path) -> None:
    context = render(
        ContextParts(agent="祈煜", person="木木", now=datetime(2024, 10, 1), core_blocks=CoreBlocks(folder).blocks())
    )
    assert context.sections == {
        "core_blocks": "<persona>\n我是祈煜，一名画家。\n</persona>\n\n"
        "<human>\n木木是一名学生。\n木木喜欢咖啡。\n</human>\n\n"
        "<words>\n“深海里也有光。”\n</words>"
    }


def test_a_missing_folder_has_no_blocks_until_it_appears(tmp_path: Path) -> None:
    blocks = CoreBlocks(tmp_path / "later")
    assert blocks.blocks() == []
    (tmp_path / "later").mkdir()
    write(tmp_path / "later", "persona.md", PERSONA)
    assert labels(blocks) == ["persona"]


def test_a_file_is_not_a_folder(tmp_path: Path) -> None:
    with pytest.raises(InvalidInput, match="not a folder"):
        CoreBlocks(write(tmp_path, "persona.md", PERSONA))


def test_windows_newlines_and_a_byte_order_mark_are_read(tmp_path: Path) -> None:
    (tmp_path / "human.md").write_bytes("\ufeff---\r\nlimit: 100\r\n---\r\n木木是学生。\r\n喜欢咖啡。\r\n".encode())
    blocks = CoreBlocks(tmp_path)
    assert blocks.get("human").text == "木木是学生。\n喜欢咖啡。"
    blocks.append("human", "木木养了一只猫。")
    assert (
        tmp_path / "human.md"
    ).read_bytes().decode() == "---\r\nlimit: 100\r\n---\r\n木木是学生。\r\n喜欢咖啡。\r\n木木养了一只猫。\r\n"


# ---------------------------------------------------------------- hot reload


def test_edits_on_disk_are_seen_at_the_next_call(folder: Path) -> None:
    blocks = CoreBlocks(folder)
    assert blocks.get("persona").text == "我是祈煜，一名画家。"
    path = write(folder, "persona.md", PERSONA.replace("一名画家", "一名音乐家"))
    assert blocks.get("persona").text == "我是祈煜，一名音乐家。"
    write(folder, "persona.md", PERSONA.replace("一名画家", "一名诗人家"))  # the same size
    touch_later(path)
    assert blocks.get("persona").text == "我是祈煜，一名诗人家。"


def test_files_added_and_removed_are_seen(folder: Path) -> None:
    blocks = CoreBlocks(folder)
    assert labels(blocks) == ["persona", "human", "words"]
    write(folder, "notes.md", "---\norder: 3\n---\n木木下周考试。\n")
    assert labels(blocks) == ["persona", "human", "notes", "words"]
    (folder / "human.md").unlink()
    assert labels(blocks) == ["persona", "notes", "words"]
    with pytest.raises(NotFound, match="no core block 'human'"):
        blocks.get("human")


def test_unchanged_files_are_not_read_again(folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blocks = CoreBlocks(folder)
    first = blocks.blocks()
    reads: list[Path] = []
    real_read = core_blocks._read

    def counting_read(path: Path) -> str:
        reads.append(path)
        return real_read(path)

    monkeypatch.setattr(core_blocks, "_read", counting_read)
    assert blocks.blocks() == first
    assert reads == []
    write(folder, "words.md", "---\n---\n“海是蓝色的。”\n")
    assert blocks.get("words").text == "“海是蓝色的。”"
    assert reads == [folder / "words.md"]


# ---------------------------------------------------------------- append and replace


def test_append_adds_a_line_and_keeps_the_front_matter(folder: Path) -> None:
    blocks = CoreBlocks(folder)
    block = blocks.append("human", "木木下周考试。")
    assert block.text == "木木是一名学生。\n木木喜欢咖啡。\n木木下周考试。"
    assert (folder / "human.md").read_text(encoding="utf-8") == HUMAN + "木木下周考试。\n"
    assert blocks.get("human") == block


def test_control_characters_are_never_written_and_shown_text_edits_a_block(folder: Path) -> None:
    """The tools show a block without its control characters; a replace of the text shown was refused as not in
    the block, and a NEL (a line end) left out glued two lines (helper's review)."""
    blocks = CoreBlocks(folder)
    added = blocks.append("human", "木木\x1b[0m下周\x07考试。\x85周五交论文。")
    assert added.text.endswith("木木[0m下周考试。\n周五交论文。")
    human = folder / "human.md"
    human.write_text(human.read_text(encoding="utf-8").replace("喜欢咖啡", "喜欢\x1b[1m咖啡"), encoding="utf-8")
    edited = blocks.replace("human", "木木喜欢[1m咖啡。", "木木喜欢茶。")  # as shown, by the tools and the prompt
    assert "木木喜欢茶。" in edited.text and "\x1b" not in human.read_text(encoding="utf-8")
    with pytest.raises(InvalidInput, match="the text is empty"):  # it answered "appended", writing nothing
        blocks.append("human", "\x1b\x07\x85")


def test_append_to_an_empty_block(tmp_path: Path) -> None:
    write(tmp_path, "notes.md", "---\nlabel: notes\n---")
    blocks = CoreBlocks(tmp_path)
    assert [(b.label, b.text) for b in blocks.blocks()] == [("notes", "")]  # a block, just with no text yet
    assert blocks.get("notes").text == ""
    assert blocks.append("notes", "第一条").text == "第一条"
    assert (tmp_path / "notes.md").read_text(encoding="utf-8") == "---\nlabel: notes\n---\n第一条\n"


def test_append_past_the_limit_is_refused_and_nothing_changes(folder: Path) -> None:
    blocks = CoreBlocks(folder)
    before = (folder / "human.md").read_bytes()
    with pytest.raises(InvalidInput, match=r"'human' would be 41 characters, over its limit of 40 \(now 16\)"):
        blocks.append("human", "木木" * 12)  # 16 + 1 newline + 24
    assert (folder / "human.md").read_bytes() == before
    assert len(blocks.append("human", "木木" * 11 + "。").text) == 40  # exactly the limit


def test_a_block_without_a_limit_has_the_default_one_and_unstorable_text_is_refused(folder: Path) -> None:
    """It is in every prompt: a tool appending without end grew it to a megabyte."""
    blocks = CoreBlocks(folder)
    before = (folder / "words.md").read_bytes()
    with pytest.raises(InvalidInput, match="over its limit of 5000"):
        blocks.append("words", "深海" * 3000)
    for bad in ("a\x00b", "\ud800"):
        with pytest.raises(InvalidInput, match=r"NUL|surrogate"):
            blocks.append("words", bad)
    assert (folder / "words.md").read_bytes() == before


def test_replace_edits_one_place(folder: Path) -> None:
    blocks = CoreBlocks(folder)
    assert blocks.replace("human", "学生", "研究生").text == "木木是一名研究生。\n木木喜欢咖啡。"
    assert blocks.replace("human", "\n木木喜欢咖啡。", "").text == "木木是一名研究生。"
    assert (folder / "human.md").read_text(encoding="utf-8") == HUMAN.replace("学生", "研究生").replace(
        "木木喜欢咖啡。\n", ""
    )


def test_replace_needs_text_that_occurs_exactly_once(folder: Path) -> None:
    blocks = CoreBlocks(folder)
    with pytest.raises(InvalidInput, match="does not contain '茶'"):
        blocks.replace("human", "茶", "咖啡")
    with pytest.raises(InvalidInput, match="contains '木木' 2 times"):
        blocks.replace("human", "木木", "木头")
    with pytest.raises(InvalidInput, match="empty"):
        blocks.replace("human", "", "x")
    with pytest.raises(InvalidInput, match="empty"):
        blocks.append("human", " \n ")


def test_replace_past_the_limit_is_refused_but_shrinking_is_allowed(folder: Path) -> None:
    blocks = CoreBlocks(folder)
    with pytest.raises(InvalidInput, match="over its limit of 40"):
        blocks.replace("human", "咖啡", "咖啡" * 14)
    write(folder, "human.md", HUMAN.replace("咖啡", "咖啡" * 20))  # a person wrote past the limit: still loaded in full
    assert len(blocks.get("human").text) == 54
    assert blocks.replace("human", "咖啡" * 20, "茶").text == "木木是一名学生。\n木木喜欢茶。"
    write(folder, "human.md", HUMAN.replace("咖啡", "咖啡" * 20))
    with pytest.raises(InvalidInput, match="would be 56 characters"):
        blocks.replace("human", "学生", "研究生的")


def test_edits_are_atomic_and_keep_the_file_mode(folder: Path) -> None:
    path = folder / "human.md"
    path.chmod(0o600)
    blocks = CoreBlocks(folder)
    inode = path.stat().st_ino
    blocks.append("human", "木木养了一只猫。")
    assert path.stat().st_ino != inode  # a new file renamed over the old one, never a half-written file
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert sorted(p.name for p in folder.iterdir()) == ["README.md", "human.md", "persona.md", "words.md"]


def test_a_failed_write_leaves_the_file_and_no_temporary(folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blocks = CoreBlocks(folder)
    before = (folder / "human.md").read_bytes()

    def broken_replace(source: str, target: str) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", broken_replace)
    with pytest.raises(OSError, match="No space"):
        blocks.append("human", "木木养了一只猫。")
    assert (folder / "human.md").read_bytes() == before
    assert sorted(p.name for p in folder.iterdir()) == ["README.md", "human.md", "persona.md", "words.md"]


def test_an_edit_reads_the_file_as_it_is_now(folder: Path) -> None:
    blocks = CoreBlocks(folder)
    blocks.blocks()
    path = write(folder, "human.md", HUMAN + "木木住在上海。\n")
    touch_later(path)
    assert blocks.append("human", "木木下周考试。").text.splitlines()[-2:] == ["木木住在上海。", "木木下周考试。"]


def test_concurrent_appends_lose_nothing(folder: Path) -> None:
    write(folder, "notes.md", "---\nlimit: 10000\n---\n")
    blocks = CoreBlocks(folder)
    threads = [threading.Thread(target=blocks.append, args=("notes", f"第{i}条")) for i in range(20)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(blocks.get("notes").text.splitlines()) == sorted(f"第{i}条" for i in range(20))


def test_unknown_labels_are_named(folder: Path) -> None:
    blocks = CoreBlocks(folder)
    with pytest.raises(NotFound, match="the blocks are: human, persona, words"):
        blocks.append("humans", "x")


# ---------------------------------------------------------------- broken files


def test_bad_yaml_names_the_file_and_the_other_blocks_still_load(folder: Path) -> None:
    write(folder, "notes.md", "---\norder: 3\nlimit: [40\n---\n木木下周考试。\n")
    blocks = CoreBlocks(folder)
    assert labels(blocks) == ["persona", "human", "words"]
    assert blocks.errors == {
        "notes.md": "core block file notes.md, line 4: the YAML front matter cannot be read: "
        "expected ',' or ']', but got '<stream end>' (while parsing a flow sequence on line 3)"
    }
    with pytest.raises(InvalidInput, match=r"core block 'notes' is not loaded: core block file notes\.md"):
        blocks.append("notes", "x")
    write(folder, "notes.md", "---\norder: 3\nlimit: 40\n---\n木木下周考试。\n")  # fixed: loads at the next call
    assert labels(blocks) == ["persona", "human", "notes", "words"]
    assert blocks.errors == {}


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("---\n- a\n- b\n---\nx\n", "must be 'key: value' lines, not a list"),
        ("---\nlimit: many\n---\nx\n", "'limit' must be a whole number of characters above 0, not 'many'"),
        ("---\nlimit: 0\n---\nx\n", "'limit' must be a whole number"),
        ("---\norder: first\n---\nx\n", "'order' must be a number"),
        ("---\nlabel: [a]\n---\nx\n", "'label' must be a non-empty text"),
        ("---\ndescription: 3\n---\nx\n", "'description' must be text"),
        ("---\nlabel: notes\nx\n", "never closed"),
    ],
)
def test_broken_front_matter_is_explained(tmp_path: Path, content: str, message: str) -> None:
    write(tmp_path, "notes.md", content)
    write(tmp_path, "persona.md", PERSONA)
    blocks = CoreBlocks(tmp_path)
    assert labels(blocks) == ["persona"]
    assert list(blocks.errors) == ["notes.md"]
    assert message in blocks.errors["notes.md"]
    assert blocks.errors["notes.md"].startswith("core block file notes.md")


def test_two_files_with_one_label_keep_the_first(folder: Path) -> None:
    write(folder, "persona2.md", "---\nlabel: persona\n---\n另一个人设\n")
    blocks = CoreBlocks(folder)
    assert blocks.get("persona").text == "我是祈煜，一名画家。"
    assert blocks.errors == {
        "persona2.md": "core block file persona2.md: label 'persona' is already used by persona.md"
    }


def test_not_utf8_is_an_error_for_that_file(folder: Path) -> None:
    (folder / "notes.md").write_bytes(b"---\n---\n\xff\xfe")
    blocks = CoreBlocks(folder)
    assert "not UTF-8 text" in blocks.errors["notes.md"]
    assert labels(blocks) == ["persona", "human", "words"]
