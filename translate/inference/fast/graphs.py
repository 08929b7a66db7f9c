"""Where a checkpoint's fast-path graphs come from: shipped with a released model, or derived from the
PyTorch model (`translate.inference.export`) on first use into the per-user cache. The ensemble
members a released model ships use its graphs where their architecture is the model's.

A graph depends only on the model configuration and the vocabulary sizes (the weights are fed in at
run time), so its cache key is a fingerprint of those. Graphs are read from a checkpoint folder only
for the released models installed with the package; any other checkpoint's graphs are derived here,
never written into its folder.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import logging
from pathlib import Path

from translate.config.paths import MEMBERS, cache_dir, models_dir
from translate.config.schema import ModelConfig
from translate.inference.fast.layout import ENCODER, GRAPH_FORMAT, GRAPHS_JSON, SHIPPED, STEP

logger = logging.getLogger(__name__)


def fingerprint(model: ModelConfig, src_vocab: int, tgt_vocab: int) -> str:
    """What a graph depends on: the model configuration, the vocabulary sizes and the graph format."""
    settings = dataclasses.asdict(model)
    for option in ("copy_attention", "features"):  # off: the graphs of the models before the option keep their key
        if not settings[option]:
            del settings[option]
    data = {"model": settings, "src_vocab": src_vocab, "tgt_vocab": tgt_vocab, "format": GRAPH_FORMAT}
    return hashlib.sha256(json.dumps(data, sort_keys=True).encode()).hexdigest()[:20]


def _matches(folder: Path, key: str) -> bool:
    try:
        recorded = json.loads((folder / GRAPHS_JSON).read_text(encoding="utf-8")).get("fingerprint")
    except (OSError, ValueError, AttributeError):
        return False
    return recorded == key and (folder / ENCODER).is_file() and (folder / STEP).is_file()


def _shipped(checkpoint: Path) -> Path | None:
    """The graphs a released model ships, for the model itself and for the ensemble members in its
    folder (`members/<name>/`, most often of the model's own architecture); None for other checkpoints."""
    try:
        folder, released = checkpoint.resolve(), models_dir().resolve()
    except OSError:
        return None
    if folder.parent == released:
        return folder / SHIPPED
    if folder.parent.name == MEMBERS and folder.parent.parent.parent == released:
        return folder.parent.parent / SHIPPED
    return None


def graph_folder(checkpoint: Path, model: ModelConfig, src_vocab: int, tgt_vocab: int) -> Path:
    """The folder holding encoder.onnx and step.onnx for this checkpoint's model, derived if needed."""
    key = fingerprint(model, src_vocab, tgt_vocab)
    shipped = _shipped(checkpoint)
    if shipped is not None and _matches(shipped, key):
        return shipped
    cached = cache_dir() / "graphs" / key
    if not _matches(cached, key):
        logger.debug("deriving the fast path's graphs for %s into %s (once per architecture)", checkpoint, cached)
        write_graphs(cached, model, src_vocab, tgt_vocab)
    return cached


def write_graphs(folder: Path, model: ModelConfig, src_vocab: int, tgt_vocab: int) -> None:
    """Export the graphs of this model configuration into `folder` (atomically: a crash leaves none)."""
    from translate.checkpoint.store import write_atomically
    from translate.inference.export import derive

    key = fingerprint(model, src_vocab, tgt_vocab)
    folder.parent.mkdir(parents=True, exist_ok=True)
    write_atomically(folder, lambda tmp: derive(tmp, model, src_vocab, tgt_vocab, key))


def ship_graphs(checkpoint: Path) -> Path:
    """Write a checkpoint's graphs into its own `onnx/` folder, as a released model ships them."""
    from translate.checkpoint.files import SRC_SPM, TGT_SPM, read_artifact, read_meta
    from translate.data.tokenizer import Tokenizer

    artifact = read_artifact(checkpoint, read_meta(checkpoint))
    src, tgt = len(Tokenizer.load(checkpoint / SRC_SPM)), len(Tokenizer.load(checkpoint / TGT_SPM))
    write_graphs(checkpoint / SHIPPED, artifact.model, src, tgt)
    return checkpoint / SHIPPED
