"""Config values from the environment: ``HUIYI_<FIELD>``, nested with ``__``, as pydantic-settings reads them.

huiyi read its config through pydantic-settings, whose import (dotenv, importlib.metadata, email, ssl) cost
about a tenth of the engine's import (issue 15); this is the part of it huiyi used, with the same rules:

- names match case-insensitively; ``HUIYI_LANGUAGE=en`` sets ``language``;
- a table or list field takes JSON (``HUIYI_RECALL='{"limit": 5}'``), and ``HUIYI_RECALL__LIMIT=5`` sets
  one key inside it, at any depth (``HUIYI_RECIPES__MINE__LIMIT=5``); both at once merge, the nested
  variable winning;
- a value nested under a field that is itself a table or list is JSON-decoded too; inside a plain
  dictionary, a value that is not JSON stays a string;
- keyword arguments are laid over the environment table by table (:func:`deep_update`);
- unlike pydantic-settings, a ``HUIYI_`` variable that names no field is an error naming the closest one
  (ignored, ``HUIYI_STOER`` left an operator believing the store was set), except huiyi's own variables
  that are no setting (:data:`NOT_SETTINGS`).
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence, Set
from dataclasses import is_dataclass
from types import UnionType
from typing import Annotated, Any, Union, get_args, get_origin

from pydantic import BaseModel
from pydantic.fields import FieldInfo

PREFIX = "huiyi_"
DELIMITER = "__"
# HUIYI_ variables huiyi reads that are no config field: the client's server and key, the built caches,
# the PostgreSQL binaries and database of the tests and benchmarks, the scripts' and browser tests' paths
NOT_SETTINGS = frozenset(
    {"huiyi_url", "huiyi_key", "huiyi_cache_dir", "huiyi_pg_bin", "huiyi_test_pg_dsn", "huiyi_eval", "huiyi_chromium"}
)


class SettingError(ValueError):
    """An environment variable that should hold JSON does not."""


def deep_update(base: Mapping[str, Any], *updates: Mapping[str, Any]) -> dict[str, Any]:
    """``base`` with each update laid over it: dictionaries merge key by key, anything else replaces."""
    out = dict(base)
    for update in updates:
        for key, value in update.items():
            if key in out and isinstance(out[key], dict) and isinstance(value, dict):
                out[key] = deep_update(out[key], value)
            else:
                out[key] = value
    return out


def by_field_name(model: type[BaseModel], values: Mapping[str, Any]) -> dict[str, Any]:
    """Keyword arguments keyed by the field they name, matched case-insensitively; others kept as given."""
    names = {name.lower(): name for name in model.model_fields}
    out: dict[str, Any] = {}
    for key, value in values.items():
        name = names.get(key.lower(), key)
        if name not in out:  # the first of several spellings wins
            out[name] = value
    return out


def from_environment(model: type[BaseModel], environ: Mapping[str, str] | None = None) -> dict[str, Any]:
    """The values the environment gives ``model``'s fields, keyed by field name, not yet validated."""
    env = {key.lower(): value for key, value in (os.environ if environ is None else environ).items()}
    _refuse_unknown(model, env)
    out: dict[str, Any] = {}
    for name, field in model.model_fields.items():
        env_name = PREFIX + name.lower()
        value: Any = env.get(env_name)
        complex_, lenient = _field_is_complex(field)
        if not complex_:
            if value is not None:
                out[name] = value
            continue
        if value is None:
            built = _explode(env_name, field, env)
            if built:
                out[name] = built
            continue
        try:
            value = _decode(env_name, value)
        except SettingError:
            if not lenient:
                raise
        out[name] = deep_update(value, _explode(env_name, field, env)) if isinstance(value, dict) else value
    return out


def _refuse_unknown(model: type[BaseModel], env: Mapping[str, str]) -> None:
    fields = [PREFIX + name.lower() for name in model.model_fields]
    for variable in sorted(env):
        head, delimiter, rest = variable.partition(DELIMITER)
        if not variable.startswith(PREFIX) or head in fields or variable in NOT_SETTINGS:
            continue
        import difflib  # here: only a refusal needs it (issue 15)

        close = difflib.get_close_matches(head, fields, n=1)
        hint = (
            f"did you mean {(close[0] + delimiter + rest).upper()}?" if close else f"one of {', '.join(fields).upper()}"
        )
        raise SettingError(f"{variable.upper()} names no setting; {hint}")


def _decode(variable: str, value: str) -> Any:
    try:
        return json.loads(value)
    except ValueError as exc:
        raise SettingError(f"{variable.upper()} should hold JSON here: {exc}") from exc


def _explode(env_name: str, field: FieldInfo, env: Mapping[str, str]) -> dict[str, Any]:
    """``HUIYI_<FIELD>__A__B=v`` variables as ``{"a": {"b": v}}``, each value decoded as its target field wants."""
    prefix = env_name + DELIMITER
    is_dict = _is_dict(field.annotation)
    result: dict[str, Any] = {}
    for name, raw in env.items():
        if not name.startswith(prefix):
            continue
        *keys, last = name[len(prefix) :].split(DELIMITER)
        value: Any = raw
        node: Any = result
        target: FieldInfo | Any = field
        for key in keys:
            target = _next_field(target, key)
            if isinstance(node, dict):
                node = node.setdefault(key, {})
        target = _next_field(target, last)
        if (target is not None or is_dict) and raw:
            if isinstance(target, FieldInfo):
                complex_, lenient = _field_is_complex(target)
            elif target is not None:  # a bare type: a dictionary's value type
                complex_, lenient = _annotation_is_complex(target), True
            else:  # a key inside a dictionary field whose value type is unknown
                complex_, lenient = True, True
            if complex_:
                try:
                    value = _decode(name, raw)
                except SettingError:
                    if not lenient:
                        raise
        if isinstance(node, dict):
            node[last] = value
    return result


def _next_field(field: FieldInfo | Any, key: str) -> FieldInfo | Any:
    """The field (or, inside a dictionary, the value type) that ``key`` names below ``field``; None if none."""
    if field is None:
        return None
    annotation = field.annotation if isinstance(field, FieldInfo) else field
    if _is_dict(annotation):
        args = get_args(annotation)
        return args[-1] if args else None
    for member in get_args(annotation):
        found = _next_field(member, key)
        if found is not None:
            return found
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        for name, sub in annotation.model_fields.items():
            if name.lower() == key.lower():
                return sub
    return None


def _is_dict(annotation: Any) -> bool:
    origin = get_origin(annotation)
    return annotation is dict or (isinstance(origin, type) and issubclass(origin, dict))


def _field_is_complex(field: FieldInfo) -> tuple[bool, bool]:
    """Whether the field takes JSON, and whether a value that is not JSON may pass as a string."""
    annotation = field.annotation
    if _annotation_is_complex(annotation):
        return True, False
    if get_origin(annotation) in (Union, UnionType) and any(_annotation_is_complex(a) for a in get_args(annotation)):
        return True, True
    return False, False


def _annotation_is_complex(annotation: Any) -> bool:
    origin = get_origin(annotation)
    if origin is Annotated:
        return _annotation_is_complex(get_args(annotation)[0])
    return _complex_type(annotation) or _complex_type(origin)


def _complex_type(kind: Any) -> bool:
    if not isinstance(kind, type) or issubclass(kind, str | bytes):
        return False
    return issubclass(kind, BaseModel | Mapping | Sequence | Set | tuple) or is_dataclass(kind)
