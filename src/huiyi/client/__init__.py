"""A typed HTTP client for a ``huiyi serve``: ``Client`` (blocking) and ``AsyncClient``.

They have the method names, arguments, models and errors of ``Memory`` and ``AsyncMemory``, so an
app moves from an embedded store to a remote server by changing one line::

    memory = Memory(".huiyi")                      # embedded
    memory = Client("http://127.0.0.1:8765")       # the same calls, answered by a server

Only the shared models (:mod:`huiyi.model`), the checks they apply (:mod:`huiyi.checks`) and errors
(:mod:`huiyi.errors`) are imported from the rest of huiyi; nothing of the server side. ``context``
answers a :class:`Context` (its ``text`` as the embedded one's), erasures an :class:`Erasure`, kept
reports a :class:`Report`, ``consolidate`` the server's report as JSON.
"""

from huiyi.client.blocking import Client
from huiyi.client.models import (
    BadRequest,
    Context,
    EntityPage,
    Erasure,
    JobPage,
    MemoryPage,
    RemoteError,
    Report,
    ReportPage,
    SearchPage,
    Unreachable,
)
from huiyi.client.remote import DEFAULT_URL, AsyncClient

__all__ = [
    "DEFAULT_URL",
    "AsyncClient",
    "BadRequest",
    "Client",
    "Context",
    "EntityPage",
    "Erasure",
    "JobPage",
    "MemoryPage",
    "RemoteError",
    "Report",
    "ReportPage",
    "SearchPage",
    "Unreachable",
]
