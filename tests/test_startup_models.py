"""Start-up: the pydantic models `from huiyi import Memory` makes are cheap to make (issue 15).

What their classes hold, not timings, as in test_startup.
"""

from __future__ import annotations

import os
import subprocess
import sys

from test_startup import SRC


def test_the_models_made_at_import_have_their_field_types_as_objects() -> None:
    """A field's type written as a string (``from __future__ import annotations``) is compiled and evaluated
    by pydantic as its class is made: ~20M instructions of the engine's import for its ~40 models."""
    code = (
        "from huiyi import AsyncMemory, Config, Memory, RecallResult\n"
        "import gc, pydantic\n"
        "strings = sorted(f'{c.__module__}.{c.__qualname__}.{n}' for c in gc.get_objects() if isinstance(c, type)"
        " and issubclass(c, pydantic.BaseModel) and c.__module__.startswith('huiyi')"
        " for n, a in vars(c).get('__annotations__', {}).items() if isinstance(a, str))\n"
        "print(strings)"
    )
    env = {**os.environ, "PYTHONPATH": SRC + os.pathsep + os.environ.get("PYTHONPATH", "")}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
    assert out.stdout.split("\n")[0] == "[]"
