"""Which model and engine translate which text: one given checkpoint, or the released model of each
text's direction (forced, or from the text's script), each loaded on first use by the engine that
`resolve_engine` chose: "torch" (`Translator`) or "onnx" (`translate.inference.fast`: the graphs derived
from the PyTorch model on ONNX Runtime, no PyTorch import)."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from translate.config.paths import find_model, released_models, with_members
from translate.config.schema import Engine
from translate.data.cleaning import detect_language
from translate.errors import CheckpointError, ConfigError
from translate.inference.passthrough import protect
from translate.inference.text_translator import TextTranslator

if TYPE_CHECKING:
    from translate.inference.glossary import Glossary

logger = logging.getLogger(__name__)
OTHER = {"en": "zh", "zh": "en"}
ONE_THREAD_LINES = 100  # up to this many lines ONNX Runtime runs one thread; more use every core (docs/results/speed.md)


def resolve_engine(engine: Engine, device: str, attention: bool, sampling: bool = False) -> str:
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


def direction_of(text: str, source: str | None = None) -> str:
    """The direction ("en-zh" or "zh-en"): from the given source language, else from the script of the
    text's language (its URLs, mentions, hashtags, code and emoji left out: `inference.passthrough`)."""
    source = source or detect_language(protect(text).text or text)
    return f"{source}-{OTHER[source]}"


class Router:
    def __init__(self, checkpoint: str | Sequence[str] | None = None, device: str = "cpu", direction: str | None = None,
                 engine: str = "torch", glossaries: Sequence[Glossary] = (), lexicon: bool | None = None,
                 ensemble: bool = False, lines: int | None = None) -> None:
        """`checkpoint`: one, several (an ensemble, on the torch engine) or none (the released models);
        `engine`: "torch" or "onnx", as `resolve_engine` chose; `glossaries`: terms every translation holds
        (a user's glossary); `lexicon`: the names lexicon too (None: where the model's settings say);
        `ensemble`: each model decoded together with the members shipped in its folder (`with_members`);
        `lines`: how many lines will be translated (None: a prompt), for the ONNX engine's threads."""
        self.glossaries, self.lexicon, self.ensemble = list(glossaries), lexicon, ensemble
        self.checkpoints = [checkpoint] if isinstance(checkpoint, str) else list(checkpoint or [])
        self.checkpoint = "+".join(self.checkpoints) or None
        self.device, self.direction, self.engine, self.lines = device, direction, engine, lines
        self._loaded: dict[str, TextTranslator] = {}

    def translator(self, direction: str | None) -> TextTranslator:
        """The given checkpoint(s) (whatever `direction`), else the released model named `direction`."""
        key = self.checkpoint or direction or ""
        if key not in self._loaded:
            if self.checkpoint is None and direction not in released_models():
                installed = ", ".join(released_models()) or "none"
                raise CheckpointError(f"no released model for {direction} (installed: {installed}); "
                                      f"train one (translate train --direction {direction}) and pass --checkpoint")
            paths = [find_model(path) for path in self.checkpoints or [key]]
            self._loaded[key] = self._load(with_members(paths) if self.ensemble else paths)
        return self._loaded[key]

    def _load(self, paths: list[Path]) -> TextTranslator:
        from translate.inference.glossary import with_glossaries

        if self.engine == "onnx":
            from translate.inference.fast import FastTranslator

            fast = FastTranslator.from_checkpoints(paths, onnx_threads(self.lines))
            return with_glossaries(fast, self.glossaries, self.lexicon)
        from translate.inference.translator import Translator

        return with_glossaries(Translator.from_checkpoints(paths, self.device), self.glossaries, self.lexicon)

    def groups(self, texts: list[str]) -> list[tuple[TextTranslator, list[int]]]:
        """(translator, indices of its texts), in order of first appearance; with a given checkpoint
        one group, and a warning for lines whose script says the other direction."""
        by_direction: dict[str, list[int]] = {}
        for i, text in enumerate(texts):
            if text.strip():
                by_direction.setdefault(self.direction or direction_of(text), []).append(i)
        if self.checkpoint is None:
            if not by_direction:  # only empty lines: nothing to load
                return []
            return [(self.translator(d), rows) for d, rows in by_direction.items()]
        translator = self.translator(None)
        model_source = translator.src_lang
        for direction, rows in by_direction.items():
            if not self.direction and model_source and not direction.startswith(model_source):
                logger.warning("line %s looks %s but the model translates %s->%s", ", ".join(str(r + 1) for r in rows[:5]),
                               {"en": "English", "zh": "Chinese"}[direction[:2]], model_source, translator.tgt_lang)
        return [(translator, [i for i, text in enumerate(texts) if text.strip()])] if by_direction else []
