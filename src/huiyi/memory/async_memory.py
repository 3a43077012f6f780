"""The async core of the one public entry: every part of memory in one class."""

from __future__ import annotations

from huiyi.memory.recall import Recall


class AsyncMemory(Recall):
    """Long-term memory for one store: a directory holding ``huiyi.sqlite``, or a ``postgresql://`` URL.

    Blocking work (SQLite, the embedding model) runs in worker threads, never on the event loop:
    recall's hot path (recall, context, working memory) in its own pool, adds and indexing in a small
    bounded one, the rest in asyncio's default pool. Passage embeddings yield to query embeddings.
    """
