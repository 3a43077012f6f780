"""A module imported at its first use, for a name a module's functions read but its import never does.

``from huiyi import Memory`` imported asyncio (with ssl, socket, subprocess: ~15 ms) for methods that run
only once a memory is open (issue 15). A module names it so::

    if TYPE_CHECKING:
        import asyncio
    else:
        asyncio = deferred("asyncio", globals())

The stand-in imports the module at the first attribute read, then puts the module itself in its place,
so every later read is a plain global's.
"""

from __future__ import annotations

import importlib
from typing import Any

__all__ = ["deferred"]


class _Deferred:
    __slots__ = ("_key", "_module", "_namespace")

    def __init__(self, module: str, namespace: dict[str, Any], key: str) -> None:
        self._module, self._namespace, self._key = module, namespace, key

    def __getattr__(self, name: str) -> Any:
        module = importlib.import_module(self._module)
        if self._namespace.get(self._key) is self:
            self._namespace[self._key] = module
        return getattr(module, name)

    def __repr__(self) -> str:
        return f"<deferred module {self._module!r}>"


def deferred(module: str, namespace: dict[str, Any], key: str | None = None) -> Any:
    """A stand-in for ``module`` held in ``namespace`` (a module's ``globals()``) under ``key`` (the
    module's last part unless given), replaced there by the module at its first use."""
    return _Deferred(module, namespace, key or module.rpartition(".")[2])
