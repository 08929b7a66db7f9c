"""The code reads as its architecture: no import cycles, folders as layers that only import downwards, sizes watched.

Every import counts: module level, inside functions and under TYPE_CHECKING.
"""

from __future__ import annotations

import ast
import warnings
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "translate"
# Size budgets flag code to look at (a warning in the test report), they never force a concept into two
# files; only far past them does the test fail.
LOOK_AT_MODULE_LINES, LOOK_AT_FUNCTION_LINES = 400, 50
MAX_MODULE_LINES, MAX_FUNCTION_LINES = 1000, 80

# errors < config < data < model < search < metrics < checkpoint < translator < run folder < train
# < compare / plots / serve < cli; modules of one layer may import each other (without cycles).
LAYERS = [
    ["errors", "version", "tokens", "machine"],
    ["config"],
    ["data"],
    ["model"],
    ["checkpoint"],
    ["inference"],
    ["evaluation"],
    ["training"],
    ["study", "serve", "release", "api"],
    ["cli", "__main__"],
]


def modules() -> dict[str, Path]:
    out = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        out[name] = path
    return out


def imports_of(path: Path, known: dict[str, Path]) -> set[str]:
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:  # `from a import b`: the module a.b, else a
            names = [f"{node.module}.{alias.name}" if f"{node.module}.{alias.name}" in known else node.module
                     for alias in node.names]
        found.update(n for n in names if n in known)
    return found


def graph() -> dict[str, set[str]]:
    known = modules()
    return {name: imports_of(path, known) - {name} for name, path in known.items()}


def layer(module: str) -> int:
    top = module.split(".")[1] if "." in module else "__init__"
    for rank, names in enumerate(LAYERS):
        if top in names:
            return rank
    raise AssertionError(f"{module} is in no layer: add it to LAYERS")


def test_no_import_cycles() -> None:
    edges = graph()
    state: dict[str, int] = {}

    def visit(node: str, stack: list[str]) -> None:
        state[node] = 1
        for nxt in sorted(edges[node]):
            if state.get(nxt) == 1:
                cycle = stack[stack.index(nxt):] + [nxt] if nxt in stack else [node, nxt]
                raise AssertionError("import cycle: " + " -> ".join(cycle))
            if nxt not in state:
                visit(nxt, stack + [nxt])
        state[node] = 2

    for module in sorted(edges):
        if module not in state:
            visit(module, [module])


def test_layers_only_import_downwards() -> None:
    for module, targets in graph().items():
        if module == "translate":  # the package facade re-exports lazily
            continue
        for target in targets:
            if target == "translate":
                raise AssertionError(f"{module} imports the package facade; import the defining module")
            assert layer(target) <= layer(module), f"{module} (layer {layer(module)}) imports {target} (layer {layer(target)})"


def test_the_model_knows_ids_not_tokenizers_or_batches() -> None:
    """No module of translate.model imports translate.data (tokenizers, batches, corpora): what the model
    learns from a batch (copy attention's targets) is rewritten on the training side."""
    found = {name: sorted(i for i in imported if i.startswith("translate.data"))
             for name, imported in graph().items() if name.startswith("translate.model")}
    assert not {name: data for name, data in found.items() if data}


def test_module_and_function_sizes_are_watched() -> None:
    """Every module of the package and of benchmarks/: past a budget, a warning to look at it; far past
    it, a failure naming every offender."""
    offenders = []
    for path in sorted([*PACKAGE.rglob("*.py"), *(PACKAGE.parent / "benchmarks").rglob("*.py")]):
        lines = path.read_text(encoding="utf-8").splitlines()
        name = str(path.relative_to(PACKAGE.parent))
        if len(lines) > MAX_MODULE_LINES:
            offenders.append(f"{name}: {len(lines)} lines: more than one concept?")
        elif len(lines) > LOOK_AT_MODULE_LINES:
            warnings.warn(f"{name}: {len(lines)} lines (budget {LOOK_AT_MODULE_LINES}): worth a look", stacklevel=1)
        for node in ast.walk(ast.parse("\n".join(lines))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                size = (node.end_lineno or node.lineno) - node.lineno + 1
                if size > MAX_FUNCTION_LINES:
                    offenders.append(f"{name}:{node.lineno} {node.name}() is {size} lines")
                elif size > LOOK_AT_FUNCTION_LINES:
                    warnings.warn(f"{name}:{node.lineno} {node.name}() is {size} lines (budget "
                                  f"{LOOK_AT_FUNCTION_LINES}): worth a look", stacklevel=1)
    assert not offenders, "\n".join(offenders)


SEARCH = ("beam_search", "greedy", "constrained_search", "token_by_token", "top_candidates", "length_penalty",
          "max_lengths", "restrict")


def test_search_is_written_once() -> None:
    """Beam search, its rules and its selections live in `translate.inference.search` only: no other module
    defines them again, and no engine sorts candidates itself."""
    elsewhere = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if (PACKAGE / "inference" / "search") in path.parents:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.FunctionDef, ast.ClassDef)) and (node.name.lstrip("_") in SEARCH
                                                                      or "Selection" in node.name):
                elsewhere.append(f"{path.relative_to(PACKAGE)}:{node.lineno} {node.name}")
            if isinstance(node, ast.Attribute) and node.attr in ("topk", "argpartition", "lexsort"):
                elsewhere.append(f"{path.relative_to(PACKAGE)}:{node.lineno} .{node.attr}")
    assert not elsewhere, elsewhere


def test_importing_the_translator_does_not_import_training_or_plotting_libraries() -> None:
    import subprocess
    import sys

    code = ("import sys, translate.inference.translator, translate.inference.router, translate.data.text; "
            "print(','.join(m for m in ('datasets', 'matplotlib', 'translate.training.train') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    assert out == "", f"imported at start-up: {out}"


def test_translate_text_on_the_fast_path_does_not_import_torch() -> None:
    """The point of `translate.inference.fast`: the CLI, the router and the released models' graphs on
    ONNX Runtime start without PyTorch, also when the names lexicon sends a sentence to the
    constrained search (北京 is one the released zh-en model does not translate by itself)."""
    import subprocess
    import sys

    code = ("import sys, translate.cli.app, translate.inference.router, translate.inference.fast, translate.cli.translation; "
            "from translate.inference.build import load_translator; load_translator('checkpoints/en-zh', engine='onnx'); "
            "from translate.inference.wrapping import with_glossaries; "
            "out = with_glossaries(load_translator('checkpoints/zh-en', engine='onnx'), lexicon=True)"
            ".translate(['我明天要去北京看我的朋友。'])[0]; "
            "print(','.join(m for m in ('torch', 'datasets', 'matplotlib') if m in sys.modules) + '|' + out)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         cwd=PACKAGE.parent).stdout.strip()
    imported, translation = out.split("|")
    assert imported == "", f"imported: {imported}"
    assert "Beijing" in translation


def test_every_subpackage_is_installed() -> None:
    """pyproject.toml lists packages by hand: a new folder missing there breaks only installed copies."""
    import tomllib

    listed = set(tomllib.loads((PACKAGE.parent / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    found = {".".join(p.parent.relative_to(PACKAGE.parent).parts) for p in PACKAGE.rglob("__init__.py")}
    found |= {".".join(p.relative_to(PACKAGE.parent).parts) for p in (PACKAGE / "serve").glob("static")}
    assert found <= listed, f"not in pyproject.toml [tool.setuptools] packages: {sorted(found - listed)}"
