"""The whole configuration of one store: every section, read from TOML, the environment and arguments."""

# no `from __future__ import annotations`: the models' field types stay objects, which pydantic would otherwise
# compile and evaluate from strings, one by one, at import (issue 15)

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path
from typing import Any, Literal, TypeVar
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from huiyi.config.consolidate import ConsolidateConfig
from huiyi.config.core import (
    BookkeepingConfig,
    ChunkConfig,
    ContextConfig,
    EmbedConfig,
    ExpandConfig,
    HttpConfig,
    IngestConfig,
    LLMConfig,
    OverviewConfig,
    StoreConfig,
    WindowConfig,
    WorkerConfig,
)
from huiyi.config.env import by_field_name, deep_update, from_environment
from huiyi.config.proxy import ProxyConfig
from huiyi.config.recall import NAMED_RECIPES, RecallRecipe, expand_recipe
from huiyi.config.summarize import SummaryConfig
from huiyi.errors import ConfigError, said

_M = TypeVar("_M", bound=BaseModel)


class Config(BaseModel):
    """The whole configuration of one huiyi store.

    Making one (``Config(...)`` or ``model_validate``) reads the environment (``HUIYI_…``, nested with
    ``__``: see :mod:`huiyi.config.env`) under the given values, as the pydantic-settings class it was did.
    """

    # validate_default and arbitrary_types_allowed as pydantic-settings had them; no input in errors (an api_key)
    model_config = ConfigDict(
        extra="forbid",
        defer_build=True,
        validate_default=True,
        arbitrary_types_allowed=True,
        hide_input_in_errors=True,
    )

    language: Literal["zh", "en"] = "zh"
    timezone: str = "Asia/Shanghai"
    embed: EmbedConfig = Field(default_factory=EmbedConfig)
    llm: LLMConfig = Field(default_factory=LLMConfig)
    window: WindowConfig = Field(default_factory=WindowConfig)
    chunk: ChunkConfig = Field(default_factory=ChunkConfig)
    recall: RecallRecipe = Field(default_factory=RecallRecipe)  # the default recipe
    recipes: dict[str, RecallRecipe] = Field(default_factory=dict)  # a user's named recipes
    store: StoreConfig = Field(default_factory=StoreConfig)
    ingest: IngestConfig = Field(default_factory=IngestConfig)
    worker: WorkerConfig = Field(default_factory=WorkerConfig)
    bookkeeping: BookkeepingConfig = Field(default_factory=BookkeepingConfig)
    overview: OverviewConfig = Field(default_factory=OverviewConfig)
    context: ContextConfig = Field(default_factory=ContextConfig)
    http: HttpConfig = Field(default_factory=HttpConfig)
    proxy: ProxyConfig = Field(default_factory=ProxyConfig)
    expand: ExpandConfig = Field(default_factory=ExpandConfig)
    consolidate: ConsolidateConfig = Field(default_factory=ConsolidateConfig)
    summary: SummaryConfig = Field(default_factory=SummaryConfig)

    def __init__(self, **values: Any) -> None:
        data = deep_update(from_environment(type(self)), by_field_name(type(self), values))
        quick = _by_section(type(self), data)
        if quick is None:
            super().__init__(**data)
        else:  # the same state the whole validator would give
            for name in ("__dict__", "__pydantic_fields_set__", "__pydantic_extra__", "__pydantic_private__"):
                object.__setattr__(self, name, getattr(quick, name))

    @model_validator(mode="before")
    @classmethod
    def _recipes(cls, data: Any) -> Any:
        return _with_recipes(data)

    @field_validator("timezone")
    @classmethod
    def _known_zone(cls, value: str) -> str:
        if not _known(value):  # found out at the first time read, as ZoneInfoNotFoundError
            raise ValueError(f"unknown timezone {value!r}; an IANA name such as Asia/Shanghai or UTC")
        return value

    @classmethod
    def load(cls, path: str | Path | None = None, **overrides: Any) -> "Config":
        """Read a TOML file (if given), let the environment override it, then ``overrides``."""
        data: dict[str, Any] = {}
        if path is not None:
            import tomllib  # here: most processes read no file (issue 15)

            try:
                data = tomllib.loads(Path(path).read_text(encoding="utf-8"))
            except (OSError, tomllib.TOMLDecodeError) as exc:
                raise ConfigError(f"cannot read config {path}: {exc}") from exc
        try:
            # keyword arguments beat the environment, and a file must not,
            # so the environment's values are laid over the file's by hand.
            with _env_only():
                from_env = given(cls())  # model_dump(exclude_unset=True), without building the serializer
            return cls(**deep_update(data, from_env, overrides))
        except ValueError as exc:
            raise ConfigError(f"invalid config: {said(exc)}") from exc


# Building the validators of the whole config (twenty sections) cost a fresh process more than its first
# recall's own work (issue 15): a config is made by validating only the sections given, each with its own
# validator, and the rest are their defaults, made without validation (valid by construction). Anything
# else (a bad value, an unknown key, recipes) takes the whole validator, which raises the usual errors.
# tests/test_config_env.py checks both ways give the same config.


def _with_recipes(data: Any) -> Any:
    """Lay each recipe over the named recipe it starts from, so ``config.recall`` is complete."""
    if not isinstance(data, dict) or not ("recall" in data or "recipes" in data):
        return data
    user = {name: _fields(value) for name, value in (data.get("recipes") or {}).items()}
    for name in user:
        if name in NAMED_RECIPES:
            raise ValueError(f"recipe {name!r} is built in; name yours differently")
    try:
        recipes = {name: expand_recipe(fields, user, (name,)) for name, fields in user.items()}
        recall = expand_recipe(_fields(data.get("recall") or {}), user)
    except ValueError:
        if _lenient.get():  # the environment alone may name a recipe the file defines
            return data
        raise
    return {**data, "recall": recall, **({"recipes": recipes} if recipes else {})}


def defaults(model: type[_M]) -> _M:
    """``model()`` with nothing given, made without validation; nested sections made the same way."""
    nested: dict[str, Any] = {}
    for name, field in model.model_fields.items():
        factory = field.default_factory
        if isinstance(factory, type) and issubclass(factory, BaseModel):
            nested[name] = defaults(factory)
    return model.model_construct(_fields_set=set(), **nested)


def _by_section(cls: type[Config], data: dict[str, Any]) -> Config | None:
    """The config ``data`` gives, its sections validated one by one; None where the whole validator must run."""
    try:
        data = _with_recipes(data)  # the before-validator, as the whole validator runs it
        values: dict[str, Any] = {}
        for name, value in data.items():
            field = cls.model_fields.get(name)
            kind = field.annotation if field is not None else None
            if isinstance(kind, type) and issubclass(kind, BaseModel):
                if isinstance(value, kind):
                    values[name] = value  # an instance is taken as it is (revalidate_instances: never)
                elif isinstance(value, dict):
                    values[name] = kind.model_validate(value)
                else:
                    return None
            elif (name == "language" and value in ("zh", "en")) or (name == "timezone" and _known(value)):
                values[name] = value
            else:
                return None
    except ValueError:  # ValidationError too: the whole validator says it in its own words
        return None
    made = defaults(cls)
    return cls.model_construct(_fields_set=set(data), **{**made.__dict__, **values})


def given(model: BaseModel) -> dict[str, Any]:
    """``model.model_dump(exclude_unset=True)`` of a config: the values set, nested sections likewise."""
    fields = type(model).model_fields
    return {name: _plain(getattr(model, name)) for name in fields if name in model.model_fields_set}


def _plain(value: Any) -> Any:
    if isinstance(value, BaseModel):
        return given(value)
    if isinstance(value, dict):
        return {key: _plain(item) for key, item in value.items()}
    if type(value) in (list, tuple):
        return type(value)(_plain(item) for item in value)
    return value


def _fields(value: Any) -> dict[str, Any]:
    """The fields a recipe sets: a TOML table as it is, a model without its defaults."""
    if isinstance(value, BaseModel):
        return value.model_dump(exclude_unset=True)
    return dict(value)


_lenient: ContextVar[bool] = ContextVar("huiyi_config_lenient", default=False)


@contextmanager
def _env_only() -> Iterator[None]:
    token = _lenient.set(True)
    try:
        yield
    finally:
        _lenient.reset(token)


def _known(zone: object) -> bool:
    if type(zone) is not str:
        return False
    try:
        ZoneInfo(zone)
    except (ValueError, ZoneInfoNotFoundError):  # ValueError: not a key at all (e.g. "../x")
        return False
    return True
