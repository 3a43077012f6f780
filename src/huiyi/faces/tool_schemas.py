"""The LLM tools' JSON schemas, in OpenAI ``tools`` format: what a model is told it may call.

The schemas name no agent, person or space: the scope is fixed by the executor
(:class:`huiyi.faces.tools.ToolExecutor`), and the argument models of
:mod:`huiyi.faces.tool_arguments` mirror these schemas field for field.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable
from typing import Any, Literal, get_args

from huiyi.errors import InvalidInput

__all__ = ["TOOLS", "TOOL_NAMES", "MemoryType", "RelationType", "tool_schemas"]

MemoryType = Literal["事件", "事实", "关系", "观点", "event", "fact", "relation", "opinion"]
RelationType = Literal["因为", "所以", "导致", "引用", "基于", "相关", "cause", "reference", "related"]

_TIME_RANGE: dict[str, Any] = {
    "type": "object",
    "description": (
        "Only memories whose time falls in this range (时间范围). Each bound is an ISO date or date-time "
        "('2025-11-04', '2025-11-04T08:00') or a time phrase ('上周', 'last May'); either may be left out. "
        "A date as the end includes that whole day."
    ),
    "properties": {
        "start": {"type": "string", "description": "Earliest time, inclusive. 开始时间"},
        "end": {"type": "string", "description": "Latest time, inclusive. 结束时间"},
    },
    "additionalProperties": False,
}


def _max_results(default: int) -> dict[str, Any]:
    return {
        "type": "integer",
        "minimum": 1,
        "maximum": 50,
        "default": default,
        "description": "How many memories to return at most. 最多返回多少条",
    }


def _function(name: str, description: str, properties: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {
        "type": "function",
        "function": {
            "name": name,
            "description": description,
            "parameters": {
                "type": "object",
                "properties": properties,
                "required": required,
                "additionalProperties": False,
            },
        },
    }


TOOLS: list[dict[str, Any]] = [
    _function(
        "create_memory",
        "Save one new long-term memory about the conversation (创建一条新的记忆): something that happened, a "
        "stable fact, a relationship or an opinion. A memory is subject + type + topic (+ object, attributes). "
        "'我' means the user you talk with and '你' means you, the assistant; better still, use names. "
        "Give relative times as said ('今天', '下周三'): they are turned into dates. Use it for things worth "
        "remembering later, not for small talk.",
        {
            "subject": {
                "type": "string",
                "description": "Who or what the memory is about (记忆的主体). e.g. '我', '小明', '木木'",
            },
            "memory_type": {
                "type": "string",
                "enum": list(get_args(MemoryType)),
                "description": "事件/event: an action at a time; 事实/fact: a stable state; 关系/relation: between "
                "people; 观点/opinion: a subjective judgement.",
            },
            "topic": {
                "type": "string",
                "description": "What is done or what state it is (主题). e.g. '吃饭', '情绪', '喜好', 'works as'",
            },
            "object": {
                "type": "string",
                "description": "The thing or state it concerns (客体), if any. e.g. '白米饭', '不开心', '打篮球'",
            },
            "attributes": {
                "type": "object",
                "description": "Extra details as key-value text (属性): 时间, 地点, 原因, 方式… 时间 is normalised.",
                "properties": {
                    "时间": {"type": "string", "description": "When, as said: '今天', '2025-11-05 08:00'"},
                    "地点": {"type": "string", "description": "Where"},
                    "原因": {"type": "string", "description": "Why"},
                    "方式": {"type": "string", "description": "How"},
                },
                "additionalProperties": {"type": "string"},
            },
            "importance": {
                "type": "number",
                "minimum": 0,
                "maximum": 1,
                "default": 0.5,
                "description": "0.3 daily trivia (日常琐事), 0.5 ordinary, 0.8 important, 1.0 key memory (关键记忆)",
            },
            "text": {
                "type": "string",
                "description": "Optional: the memory as one full sentence in the chat's language "
                "(e.g. '木木下周三考驾照'); composed from subject, topic and object when left out.",
            },
        },
        ["subject", "memory_type", "topic"],
    ),
    _function(
        "link_memories",
        "Link two existing memories (在两条记忆之间建立关联): a cause, a reference or a loose relation. Name each "
        "memory by its id (from a search) or by a short description used to find it. For 因为/所以/导致 the "
        "source is the cause and the target the effect; for 引用/基于 the target builds on the source.",
        {
            "source_memory_description": {
                "type": "string",
                "description": "Words that find the source memory (源记忆的描述). e.g. '我今天不开心'",
            },
            "target_memory_description": {
                "type": "string",
                "description": "Words that find the target memory (目标记忆的描述). e.g. '我摔东西'",
            },
            "source_memory_id": {"type": "string", "description": "The source memory's id, instead of a description"},
            "target_memory_id": {"type": "string", "description": "The target memory's id, instead of a description"},
            "relation_type": {
                "type": "string",
                "enum": list(get_args(RelationType)),
                "description": "因为/所以/导致/cause: source causes target; 引用/基于/reference: target refers to "
                "source; 相关/related: related.",
            },
            "importance": {
                "type": "number",
                "minimum": 0,
                "maximum": 1,
                "default": 0.6,
                "description": "How strong the link is, 0-1.",
            },
        },
        ["relation_type"],
    ),
    _function(
        "search_memories",
        "Search long-term memory by meaning and keywords (根据语义搜索相关记忆), to answer a question or recall "
        "the past. Returns memories best first, each with id, kind, text, time and score.",
        {
            "query": {
                "type": "string",
                "description": "A question or keywords (搜索查询). e.g. '我什么时候吃过饭？'",
            },
            "memory_types": {
                "type": "array",
                "items": {"type": "string", "enum": list(get_args(MemoryType))},
                "description": "Only these types (限定记忆类型): 事件 events; 事实/关系/观点 facts. Leave out to "
                "search everything, including past conversation.",
            },
            "time_range": _TIME_RANGE,
            "max_results": _max_results(10),
            "expand_depth": {
                "type": "integer",
                "minimum": 0,
                "maximum": 2,
                "default": 1,
                "description": "Follow links from the memories found (关联扩展深度): 0 direct matches only, "
                "1 one hop, 2 two hops.",
            },
        },
        ["query"],
    ),
    _function(
        "conversation_search",
        "Search the whole message history with this user, beyond what is in your context (搜索聊天记录). "
        "Returns past conversation snippets with who said what and when.",
        {
            "query": {"type": "string", "description": "What to look for. 要找的内容"},
            "time_range": _TIME_RANGE,
            "max_results": _max_results(5),
        },
        ["query"],
    ),
    _function(
        "archival_memory_search",
        "Search archival memory (搜索归档记忆): the events, facts, summaries and notes distilled from past "
        "conversations. Use it when your context lacks something you should know.",
        {
            "query": {"type": "string", "description": "What to look for. 要找的内容"},
            "time_range": _TIME_RANGE,
            "max_results": _max_results(5),
        },
        ["query"],
    ),
    _function(
        "core_memory_append",
        "Append one line to a core memory block (在核心记忆块末尾追加一行), which is always in your context. "
        "Blocks have a size limit; keep lines short.",
        {
            "label": {"type": "string", "description": "The block's label, e.g. 'human' or 'persona'. 记忆块名"},
            "content": {"type": "string", "description": "The line to add. 要追加的内容"},
        },
        ["label", "content"],
    ),
    _function(
        "core_memory_replace",
        "Replace text in a core memory block (替换核心记忆块中的内容): old_content must appear in the block "
        "exactly once; an empty new_content deletes it.",
        {
            "label": {"type": "string", "description": "The block's label. 记忆块名"},
            "old_content": {"type": "string", "description": "The exact text to replace. 原文"},
            "new_content": {"type": "string", "description": "The new text (empty to delete). 新内容"},
        },
        ["label", "old_content", "new_content"],
    ),
    _function(
        "rate_memory",
        "Rate a memory you recalled (评价一条记忆的价值): +1 it helped you answer, -1 it was of no use or "
        "wrong, values between for less sure judgements. Ratings add up and weigh in which memories come "
        "back later (反馈权重). Name the memory by the id a search gave you.",
        {
            "memory_id": {"type": "string", "description": "The memory's id, from a search. 记忆的 id"},
            "value": {
                "type": "number",
                "minimum": -1,
                "maximum": 1,
                "description": "-1 useless or wrong … 0 no opinion … +1 helpful. 评价",
            },
        },
        ["memory_id", "value"],
    ),
]

TOOL_NAMES: tuple[str, ...] = tuple(tool["function"]["name"] for tool in TOOLS)


def tool_schemas(names: Iterable[str] | None = None) -> list[dict[str, Any]]:
    """Deep copies of the schemas, all or the named ones, in the order of ``TOOLS``.

    >>> [t["function"]["name"] for t in tool_schemas(["search_memories", "create_memory"])]
    ['create_memory', 'search_memories']
    """
    wanted = None if names is None else set(names)
    if wanted is not None and (unknown := wanted - set(TOOL_NAMES)):
        raise InvalidInput(f"unknown tools {sorted(unknown)}; the tools are {', '.join(TOOL_NAMES)}")
    return [copy.deepcopy(tool) for tool in TOOLS if wanted is None or tool["function"]["name"] in wanted]
