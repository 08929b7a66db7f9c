"""What wraps a translator's search: a user's glossaries, the names lexicon (its names forced into the
search, or read as stand-ins: `inference.standins`) and the source's numbers (`inference.glossary`)."""

from __future__ import annotations

from collections.abc import Sequence

from translate.inference import glossary
from translate.inference.glossary import Glossary, GlossaryTranslator, Numbers
from translate.inference.standins import CLOCK_TERMS, STANDINS, WHENS, StandInTranslator
from translate.inference.text_translator import TextTranslator


def with_glossaries(translator: TextTranslator, glossaries: Sequence[Glossary] = (),
                    lexicon: bool | None = None) -> TextTranslator:
    """`translator` with the user's glossaries, then the names lexicon where `lexicon` says so (None: as the
    model's `decode.lexicon` says), then the source's numbers where `decode.keep_numbers` says so;
    with `decode.names` "standins", the lexicon's people and places read as stand-ins
    (`inference.standins`) whose translations are terms too (with `decode.date_standins` and
    `decode.clock_standins` or `decode.times_as_clocks`, the dates', times' and clocks' stand-ins too), and for English sources no other
    name of the lexicon forced; `translator` itself when there are no terms."""
    use_lexicon = translator.decode.lexicon if lexicon is None else lexicon
    standins = use_lexicon and translator.decode.names == "standins"
    forced = use_lexicon and not (standins and translator.src_lang == "en")  # see inference.standins
    dated = standins and translator.decode.date_standins
    clocked = standins and (translator.decode.clock_standins or dated and translator.decode.times_as_clocks)
    terms = [*glossaries, *([STANDINS] if standins else []), *([WHENS] if dated else []),
             *([CLOCK_TERMS] if clocked else []), *([glossary.names_lexicon()] if forced else []),
             *([Numbers()] if translator.decode.keep_numbers else [])]
    if not terms:
        return translator
    if standins:
        return StandInTranslator(GlossaryTranslator(translator, *terms), glossaries)
    return GlossaryTranslator(translator, *terms)


def model_translator(translator: TextTranslator) -> TextTranslator:
    """The translator that holds the model under glossaries and stand-ins (for its attention)."""
    while hasattr(translator, "inner"):
        translator = translator.inner
    return translator
