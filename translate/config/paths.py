"""Default locations, independent of the current directory; `translate info` prints them all.

- released models: $TRANSLATE_MODELS, else the models installed with the package
  (`translate/released/`, from the repository's `checkpoints/`), else a source checkout's `checkpoints/`;
  a model may ship ensemble members in its folder (`members/<name>/`, each a checkpoint; `--ensemble`);
- the default corpus (the bundled Tatoeba split): $TRANSLATE_DATA, else the installed copy, else
  a source checkout's `data/tatoeba-cmn-eng/`;
- caches (tokenizers, tokenised corpora): $TRANSLATE_CACHE, else $XDG_CACHE_HOME/translate, else
  ~/.cache/translate.
"""

from __future__ import annotations

import logging
import os
import re
from importlib import resources
from pathlib import Path

from translate.errors import CheckpointError

logger = logging.getLogger(__name__)
DEFAULT_MODEL = "en-zh"
_SOURCE_ROOT = Path(__file__).resolve().parents[2]  # a source checkout (editable install)
MEMBERS = "members"  # a model folder's ensemble members: members/<name>/, each a checkpoint
_MODEL_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")


def _installed(name: str) -> Path | None:
    try:
        path = Path(str(resources.files("translate") / name))
    except (ModuleNotFoundError, TypeError):  # pragma: no cover - always importable here
        return None
    return path if path.is_dir() else None


def models_dir() -> Path:
    """The folder holding released models, one sub-folder per model name (e.g. en-zh)."""
    if os.environ.get("TRANSLATE_MODELS"):
        return Path(os.environ["TRANSLATE_MODELS"]).expanduser()
    return _installed("released") or _SOURCE_ROOT / "checkpoints"


def default_data_dir() -> Path:
    """The bundled Tatoeba English-Mandarin split (train/dev/test.tsv)."""
    if os.environ.get("TRANSLATE_DATA"):
        return Path(os.environ["TRANSLATE_DATA"]).expanduser()
    return _installed("corpus") or _SOURCE_ROOT / "data" / "tatoeba-cmn-eng"


def names_file() -> Path:
    """CC-CEDICT's names as the names lexicon reads them (data/cedict-names/names.tsv, shipped)."""
    return (_installed("names") or _SOURCE_ROOT / "data" / "cedict-names") / "names.tsv"


def given_names_file() -> Path:
    """ECDICT's Western given names (data/given-names/given.tsv, shipped; `data.given_names`)."""
    return (_installed("given_names") or _SOURCE_ROOT / "data" / "given-names") / "given.tsv"


def cache_dir() -> Path:
    """Per-user cache of tokenizers and tokenised corpora (safe to delete)."""
    if os.environ.get("TRANSLATE_CACHE"):
        return Path(os.environ["TRANSLATE_CACHE"]).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "translate"


def data_dir(configured: str) -> Path:
    """`data.data_dir` as configured ("" = the bundled corpus); a relative path is relative to the current folder."""
    return Path(configured) if configured else default_data_dir()


def cache_path(configured: str) -> Path:
    return Path(configured) if configured else cache_dir()


def released_models() -> list[str]:
    root = models_dir()
    return sorted(p.name for p in root.iterdir() if (p / "model.safetensors").is_file()) if root.is_dir() else []


def find_model(name_or_path: Path | str) -> Path:
    """A checkpoint or run folder given by path, or a released model given by name (e.g. `en-zh`)."""
    path = Path(name_or_path)
    if path.exists():
        return path
    text = str(name_or_path)
    if _MODEL_NAME.match(text) and (models_dir() / text).is_dir():
        return models_dir() / text
    if _MODEL_NAME.match(text) and "/" not in text:
        known = ", ".join(released_models()) or "none installed"
        raise CheckpointError(f"checkpoint not found: {text} (not a folder, nor a released model in "
                              f"{models_dir()}: {known})")
    raise CheckpointError(f"checkpoint not found: {text}")


def ensemble_members(model: Path) -> list[Path]:
    """The ensemble members shipped in a model's folder (`members/<name>/` holding model.safetensors), in
    name order; none for a folder without them (a run folder, a checkpoint of one's own)."""
    folder = model / MEMBERS
    if not folder.is_dir():
        return []
    return sorted(p for p in folder.iterdir() if (p / "model.safetensors").is_file())


def with_members(models: list[Path]) -> list[Path]:
    """Each model followed by its ensemble members (`ensemble_members`); a model without members is
    decoded alone, with a warning."""
    paths = []
    for model in models:
        members = ensemble_members(model)
        if not members:
            logger.warning("%s has no ensemble members (no %s/<name>/ checkpoints in it): decoded alone", model, MEMBERS)
        paths += [model, *members]
    return paths
