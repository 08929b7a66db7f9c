"""The Python API: `translate.load(...)` gives a `Translator` that does what `translate text` does.

    import translate

    zh_en = translate.load("zh-en")
    zh_en.translate("我喜欢茶。我也喜欢咖啡。")           # 'I like tea. I like coffee, too.'
    both = translate.load()                                # each text to the released model of its language
    both.translate(["Where is the station?", "火车站在哪里？"])

A text may hold several sentences: they are split, translated in one batched search and joined, as
`translate text` and `translate file` do. The names lexicon and a glossary apply as the model's
settings and the arguments say. Texts go through ONNX Runtime on the CPU (`engine="auto"`), PyTorch
where attention is asked for or a GPU is named.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, overload

from translate.config.loading import apply_overrides
from translate.config.schema import DecodeConfig
from translate.errors import ConfigError
from translate.inference.build import resolve_engine
from translate.inference.router import Router
from translate.inference.wrapping import model_translator

if TYPE_CHECKING:
    from translate.inference.text_translator import TextTranslator
    from translate.inference.translator import Alignment

ALL_CORES = 1 << 30  # a line count past ONE_THREAD_LINES: ONNX Runtime uses every core, as `translate file` does


@dataclass(frozen=True)
class Candidate:
    """One of a sentence's n-best translations: its text and the search's score (log-probability,
    length-normalised as the beam search ranks it)."""

    text: str
    score: float


class Translator:
    """Translates English and Chinese text with a released model, a checkpoint or an ensemble."""

    def __init__(self, model: str | Path | Sequence[str | Path] | None = None, *, direction: str | None = None,
                 ensemble: bool = False, engine: str = "auto", device: str = "cpu",
                 glossary: str | Path | Sequence[tuple[str, str]] | None = None, lexicon: bool | None = None,
                 beam: int | None = None) -> None:
        """`model`: a released model's name ("en-zh", "zh-en"), a run or checkpoint folder, or several
        (an ensemble); None: the released model of each text's language. `direction`: translate every
        text this way instead of detecting its language. `ensemble`: with the members the model ships.
        `engine`: "auto", "onnx" or "torch". `glossary`: a TSV file of en<TAB>zh terms, or (en, zh) pairs,
        that every translation must hold. `lexicon`: the names lexicon (None: as the model's settings
        say). `beam`: the beam size (None: the model's; 1 = greedy)."""
        from translate.inference.glossary import Glossary

        models = [str(model)] if isinstance(model, str | Path) else [str(m) for m in model or []]
        terms = [] if glossary is None else [
            Glossary.read(Path(glossary)) if isinstance(glossary, str | Path) else Glossary.from_pairs(list(glossary))]
        self.engine = resolve_engine(engine, device, attention=False)
        self._settings = (models, device, direction, terms, lexicon, ensemble)
        self._router = Router(models, device, direction, self.engine, terms, lexicon, ensemble, ALL_CORES)
        self._torch: Router | None = None
        self.beam = beam

    @overload
    def translate(self, texts: str, *, beam: int | None = None) -> str: ...  # type: ignore[overload-overlap]

    @overload
    def translate(self, texts: Sequence[str], *, beam: int | None = None) -> list[str]: ...

    def translate(self, texts: str | Sequence[str], *, beam: int | None = None) -> str | list[str]:
        """The translation of a text, or of each text of a list (same order; an empty text gives "")."""
        lines = [texts] if isinstance(texts, str) else list(texts)
        out = [""] * len(lines)
        for translator, rows in self._router.groups(lines):
            decode = self._decode(translator, beam)
            for i, translation in zip(rows, translator.translate_paragraphs([lines[i] for i in rows], decode)):
                out[i] = translation
        return out[0] if isinstance(texts, str) else out

    def n_best(self, texts: Sequence[str], n: int = 5, *, beam: int | None = None) -> list[list[Candidate]]:
        """Each sentence's `n` best translations, best first (a text is searched whole, not split)."""
        lines = list(texts)
        out: list[list[Candidate]] = [[] for _ in lines]
        for translator, rows in self._router.groups(lines):
            decode = self._decode(translator, beam, n_best=n)
            for i, hyps in zip(rows, translator.translate_n_best([lines[i] for i in rows], decode)):
                out[i] = [Candidate(h.text, h.score) for h in hyps]
        return [hyps or [Candidate("", 0.0)] for hyps in out]

    def attention(self, texts: Sequence[str], *, beam: int | None = None) -> list[Alignment]:
        """Each sentence's best translation with its attention (source pieces, target pieces, weights):
        what `translate text --show-attention` prints; runs on PyTorch."""
        from translate.inference.standins import align
        from translate.inference.translator import Translator as TorchTranslator

        lines = list(texts)
        if any(not line.strip() for line in lines):
            raise ConfigError("attention: every text must hold something to translate")
        if self._torch is None:
            models, device, direction, terms, lexicon, ensemble = self._settings
            self._torch = Router(models, device, direction, "torch", terms, lexicon, ensemble, ALL_CORES)
        out: list[Any] = [None] * len(lines)
        for translator, rows in self._torch.groups(lines):
            decode = self._decode(translator, beam)
            chosen = [lines[i] for i in rows]
            results = translator.translate_n_best(chosen, decode)
            inner = model_translator(translator)  # under glossaries and stand-ins: the model's attention
            assert isinstance(inner, TorchTranslator)
            for i, alignment in zip(rows, align(inner, chosen, [hyps[0] for hyps in results])):
                out[i] = alignment
        return out

    def _decode(self, translator: TextTranslator, beam: int | None, n_best: int = 1) -> DecodeConfig:
        overrides: dict[str, Any] = {"n_best": n_best}
        if (beam or self.beam) is not None:
            overrides["beam_size"] = beam or self.beam
        return apply_overrides(translator.decode, overrides)


def load(model: str | Path | Sequence[str | Path] | None = None, **options: Any) -> Translator:
    """`Translator(model, **options)`: see `Translator.__init__` for the options."""
    return Translator(model, **options)
