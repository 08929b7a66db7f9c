"""The one way to get a translator, and the one rule that chooses its engine.

`load_translator` builds what the CLI, `translate serve`, evaluation, release, the study and the Python
API translate with: checkpoints (a run folder, a checkpoint folder or a released model's name; several
= an ensemble; `ensemble=True` adds the members each one ships) on "torch" (`inference.translator`) or
"onnx" (`inference.fast`: the graphs derived from the PyTorch model on ONNX Runtime, no PyTorch import),
with decoding or attention settings replaced where asked. Glossaries and the names lexicon go around it
(`inference.glossary.with_glossaries`); which model translates which line is `inference.router`'s."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, overload

from translate.config.paths import find_model, with_members
from translate.config.schema import Engine
from translate.errors import ConfigError

if TYPE_CHECKING:
    from translate.inference.fast import FastTranslator
    from translate.inference.text_translator import TextTranslator
    from translate.inference.translator import Translator

ONE_THREAD_LINES = 100  # up to this many lines ONNX Runtime runs one thread; more use every core (docs/results/speed.md)


def resolve_engine(engine: Engine | str, device: str, attention: bool, sampling: bool = False) -> str:
    """The one place the engine is chosen: "auto" is ONNX Runtime on the CPU without attention views or
    sampling (one model or an ensemble, any number of lines: it starts faster and searches batches at
    least as fast; docs/results/speed.md), else PyTorch; "onnx" with a device, an attention view or
    sampling, which it cannot serve, is an error."""
    if engine == "onnx" and (attention or device != "cpu"):
        raise ConfigError("--engine onnx runs on the CPU and without --show-attention / --attention-png; "
                          "use --engine torch")
    if engine == "onnx" and sampling:
        raise ConfigError("--engine onnx searches, it does not sample; --sample runs on --engine torch")
    if engine == "auto":
        return "onnx" if device == "cpu" and not (attention or sampling) else "torch"
    return engine


def onnx_threads(lines: int | None) -> int:
    """ONNX Runtime's threads: one for a prompt or a few lines (no thread pool to start), else 0 (every
    physical core, as PyTorch uses)."""
    return 1 if lines is None or lines <= ONE_THREAD_LINES else 0


def model_paths(models: Path | str | Sequence[Path | str], ensemble: bool = False) -> list[Path]:
    """The checkpoint folders that `models` names (a run folder: its best/), with each model's shipped
    members where `ensemble` (`config.paths.with_members`)."""
    found = [find_model(m) for m in ([models] if isinstance(models, (Path, str)) else models)]
    return with_members(found) if ensemble else found


@overload
def load_translator(models: Path | str | Sequence[Path | str], *, engine: Literal["torch"] = ..., device: str = ...,
                    ensemble: bool = ..., lines: int | None = ..., threads: int | None = ..., decode: Mapping[str, Any] | None = ...,
                    attention: Mapping[str, Any] | None = ...) -> Translator: ...


@overload
def load_translator(models: Path | str | Sequence[Path | str], *, engine: Literal["onnx"], device: str = ...,
                    ensemble: bool = ..., lines: int | None = ..., threads: int | None = ..., decode: Mapping[str, Any] | None = ...,
                    attention: Mapping[str, Any] | None = ...) -> FastTranslator: ...


@overload
def load_translator(models: Path | str | Sequence[Path | str], *, engine: str, device: str = ...,
                    ensemble: bool = ..., lines: int | None = ..., threads: int | None = ..., decode: Mapping[str, Any] | None = ...,
                    attention: Mapping[str, Any] | None = ...) -> TextTranslator: ...


def load_translator(models: Path | str | Sequence[Path | str], *, engine: str = "torch", device: str = "cpu",
                    ensemble: bool = False, lines: int | None = None, threads: int | None = None,
                    decode: Mapping[str, Any] | None = None, attention: Mapping[str, Any] | None = None) -> TextTranslator:
    """A translator of `models` (one, or several decoded together as an ensemble: the same direction and
    vocabularies, the first one's decoding settings). `engine`: "torch", "onnx" or "auto"
    (`resolve_engine`: ONNX Runtime on the CPU); `lines`: how many lines will be translated (None: a
    prompt), for ONNX Runtime's threads (`onnx_threads`), unless `threads` gives them (0: every core); `decode`: `decode.*` settings replaced (e.g. {"beam_size": 1});
    `attention`: `model.attention.*` settings replaced (the same weights decoded otherwise; PyTorch only,
    `checkpoint.store.decoded_as`)."""
    paths = model_paths(models, ensemble)
    chosen = resolve_engine(engine, device, attention=False)
    translator: TextTranslator
    if chosen == "onnx":
        if attention:
            raise ConfigError("model.attention.* settings change the PyTorch model; decode them with --engine torch")
        from translate.inference.fast import FastTranslator

        translator = FastTranslator.from_checkpoints(paths, onnx_threads(lines) if threads is None else threads)
    else:
        from translate.checkpoint.store import decoded_as, load_checkpoint
        from translate.config.device import resolve_device
        from translate.inference.translator import Translator

        loaded = [load_checkpoint(path, resolve_device(device)) for path in paths]
        if attention:
            loaded = [decoded_as(member, dict(attention)) for member in loaded]
        translator = Translator.from_ensemble(loaded) if len(loaded) > 1 else Translator.from_loaded(loaded[0])
    if decode:
        from translate.config.loading import apply_overrides

        translator.decode = apply_overrides(translator.decode, dict(decode))
    return translator
