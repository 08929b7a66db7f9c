"""Which model translates which text: one given checkpoint, or the released model of each text's
direction (forced, or from the text's script), each loaded on first use by `inference.build.load_translator`
on the engine that `inference.build.resolve_engine` chose, with the glossaries and names lexicon around it."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import TYPE_CHECKING

from translate.config.paths import released_models
from translate.data.cleaning import detect_language
from translate.errors import CheckpointError
from translate.inference.build import load_translator
from translate.inference.passthrough import read
from translate.inference.text_translator import TextTranslator

if TYPE_CHECKING:
    from translate.inference.glossary import Glossary

logger = logging.getLogger(__name__)
OTHER = {"en": "zh", "zh": "en"}


def direction_of(text: str, source: str | None = None) -> str:
    """The direction ("en-zh" or "zh-en"): from the given source language, else from the script of the
    text's language (its URLs, mentions, hashtags, code and emoji left out: `inference.passthrough`)."""
    source = source or detect_language(read(text))
    return f"{source}-{OTHER[source]}"


class Router:
    def __init__(self, checkpoint: str | Sequence[str] | None = None, device: str = "cpu", direction: str | None = None,
                 engine: str = "torch", glossaries: Sequence[Glossary] = (), lexicon: bool | None = None,
                 ensemble: bool = False, lines: int | None = None) -> None:
        """`checkpoint`: one, several (an ensemble, on the torch engine) or none (the released models);
        `engine`: "torch", "onnx" or "auto" (`inference.build.resolve_engine`); `glossaries`: terms every translation holds
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
            from translate.inference.wrapping import with_glossaries

            translator = load_translator(self.checkpoints or [key], engine=self.engine, device=self.device,
                                         ensemble=self.ensemble, lines=self.lines)
            self._loaded[key] = with_glossaries(translator, self.glossaries, self.lexicon)
        return self._loaded[key]

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
