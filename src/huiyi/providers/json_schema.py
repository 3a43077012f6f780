"""Checking an answer against a JSON schema (:func:`schema_errors`): ``jsonschema`` when it is
installed, else a small checker for the parts of JSON Schema the flows' schemas use.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

__all__ = ["json_type", "schema_errors"]

_TYPES: dict[str, Callable[[Any], bool]] = {
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "string": lambda v: isinstance(v, str),
    "boolean": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
    "number": lambda v: isinstance(v, int | float) and not isinstance(v, bool),
    "integer": lambda v: (isinstance(v, int) and not isinstance(v, bool)) or (isinstance(v, float) and v.is_integer()),
}


def schema_errors(value: Any, schema: dict[str, Any]) -> list[str]:
    """Why ``value`` fails ``schema``; empty when it passes.

    Uses ``jsonschema`` when it is installed; otherwise checks the parts the flows' schemas use:
    ``type``, ``required``, ``properties``, ``additionalProperties: false``, ``items`` and ``enum``.
    """
    validator = _jsonschema_validator(schema)
    if validator is not None:
        return [
            f"{'/'.join(str(p) for p in error.absolute_path) or '(root)'}: {error.message}"
            for error in validator.iter_errors(value)
        ]
    errors: list[str] = []
    _check(value, schema, "(root)", errors)
    return errors


def _jsonschema_validator(schema: dict[str, Any]) -> Any:
    try:
        module = importlib.import_module("jsonschema")  # optional; imported by name so mypy needs no stubs
    except ImportError:
        return None
    return module.validators.validator_for(schema)(schema)


def _check(value: Any, schema: Any, path: str, errors: list[str]) -> None:
    if not isinstance(schema, dict):
        return
    expected = schema.get("type")
    if expected is not None:
        names = expected if isinstance(expected, list) else [expected]
        if not any(_TYPES.get(t, lambda _: True)(value) for t in names):
            errors.append(f"{path}: expected {'/'.join(names)}, got {json_type(value)}")
            return
    if "enum" in schema and value not in schema["enum"]:
        errors.append(f"{path}: {value!r} is not one of {schema['enum']!r}")
    if "const" in schema and value != schema["const"]:
        errors.append(f"{path}: expected {schema['const']!r}")
    if isinstance(value, dict):
        props = schema.get("properties") or {}
        errors.extend(f"{path}: missing {key!r}" for key in schema.get("required", []) if key not in value)
        for key, item in value.items():
            if key in props:
                _check(item, props[key], f"{path}.{key}" if path != "(root)" else key, errors)
            elif schema.get("additionalProperties") is False:
                errors.append(f"{path}: unexpected key {key!r}")
    elif isinstance(value, list) and isinstance(schema.get("items"), dict):
        for index, item in enumerate(value):
            _check(item, schema["items"], f"{path}[{index}]", errors)


def json_type(value: Any) -> str:
    for name in ("null", "boolean", "integer", "number", "string", "array", "object"):
        if _TYPES[name](value) and not (name == "integer" and isinstance(value, float)):
            return name
    return type(value).__name__
