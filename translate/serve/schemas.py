"""The JSON the API reads and writes (pydantic: unknown fields, out-of-range values and numbers or
booleans sent as strings are 422)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from translate.evaluation.adequacy import UNATTENDED

Language = Literal["en", "zh"]
LANGUAGE_NAMES = {"en": "English", "zh": "Chinese"}
# Codes clients send, read as the model's two languages (lower case, "_" as "-"). Traditional Chinese is
# read as input (converted to Simplified before translating); the output is Simplified.
_TRADITIONAL = {"zt", "zh-hant", "zh-tw", "zh-hk", "zh-mo"}
_ALIASES = {"en": "en", "eng": "en", "zh": "zh", "zho": "zh", "chi": "zh", "cmn": "zh", "zh-hans": "zh",
            "zh-cn": "zh", "zh-sg": "zh", "zh-my": "zh", **dict.fromkeys(_TRADITIONAL, "zh")}


def language_code(code: Any, role: Literal["source", "target"]) -> Any:
    """A client's language code as "en" or "zh" ("auto" as a source): zh-Hans, zh-CN, zt, zh-Hant,
    zh-TW, cmn, en-US, en-GB... (LibreTranslate's and Mastodon's codes); anything else is refused
    with the codes this server reads. Non-strings are left to the field's own type check."""
    if not isinstance(code, str):
        return code
    key = code.strip().lower().replace("_", "-")
    if role == "source" and key == "auto":
        return "auto"
    if role == "target" and key in _TRADITIONAL:
        raise ValueError(f"{code!r} as a target: this server writes Simplified Chinese; ask for zh (or zh-Hans)")
    found = _ALIASES.get(key) or ("en" if key.startswith("en-") else None)
    if found is None:
        raise ValueError(f"{code!r} is not a language this server translates: en or zh (also zh-Hans, zh-CN, "
                         f"zt, zh-Hant, zh-TW, en-US{', or auto' if role == 'source' else ''})")
    return found


class TranslateRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    q: str | list[str] = Field(description="A text or a list of texts.")
    source: Language | Literal["auto"] = Field("auto", description="Source language; auto = from each text's script.")
    target: Language | None = Field(None, description="Target language; default: the other one.")
    model: str | None = Field(None, description="A model name from GET /models; default: the model for the direction.")
    n_best: int = Field(1, ge=1, le=5, strict=True, description="Alternatives per text (at most beam).")
    beam: int = Field(5, ge=1, le=10, strict=True, description="Beam size; 1 = greedy.")
    attention: bool = Field(False, strict=True, description="Return the attention matrix of every alternative.")
    glossary: list[tuple[str, str]] | None = Field(None, max_length=100, description=(
        "Term pairs [English, Chinese] (used in both directions) that every translation of a text holding "
        "the term must contain, e.g. [[\"Beijing\", \"北京\"]]; decoded by a constrained beam search."))
    lexicon: bool | None = Field(None, strict=True, description=(
        "CC-CEDICT's names as glossary terms too (北京 = Beijing); default: as the model's settings say "
        "(GET /models: `lexicon`)."))
    format: Literal["text", "html"] = Field("text", description=(
        "LibreTranslate's field: `html` translates the text of an HTML document and keeps its markup."))
    alternatives: int | None = Field(None, ge=0, le=4, strict=True, description=(
        "LibreTranslate's field: alternative translations per text besides the best (n_best - 1)."))
    api_key: str | None = Field(None, max_length=256, description=(
        "LibreTranslate's field: the API key in the body (else X-API-Key or Authorization: Bearer)."))

    @field_validator("source", mode="before")
    @classmethod
    def _source_code(cls, value: Any) -> Any:
        return language_code(value, "source")

    @field_validator("target", mode="before")
    @classmethod
    def _target_code(cls, value: Any) -> Any:
        return language_code(value, "target")

    @model_validator(mode="after")
    def _consistent(self) -> TranslateRequest:
        if self.alternatives is not None:
            if "n_best" in self.model_fields_set:
                raise ValueError("give n_best or alternatives (LibreTranslate's n_best - 1), not both")
            self.n_best = self.alternatives + 1
        if self.format == "html" and self.attention:
            raise ValueError("attention is returned for plain text only, not with format html")
        check_unicode(self.texts)
        check_unicode([term for pair in self.glossary or [] for term in pair], "glossary term")
        check_unicode([self.api_key or ""], "api_key")
        if self.n_best > self.beam:
            raise ValueError(f"n_best ({self.n_best}) must not exceed beam ({self.beam})")
        if self.target is not None and self.source == self.target:
            raise ValueError(f"source and target are both {self.target}")
        return self

    @property
    def texts(self) -> list[str]:
        return [self.q] if isinstance(self.q, str) else list(self.q)


class Attention(BaseModel):
    """One sentence's attention: its translation's pieces over its own source pieces."""

    source_start: int = Field(description="Where the sentence's source pieces start in `source_pieces`.")
    source_end: int = Field(description="... and end (exclusive): the matrix has source_end - source_start columns.")
    target_start: int = Field(description="Where its translation's pieces start in the alternative's `target_pieces`.")
    target_end: int = Field(description="... and end (exclusive): the matrix has target_end - target_start rows.")
    weights: list[list[float]] = Field(description="weights[t][s]: target piece t over source piece s (rows sum to 1).")
    heads: list[list[list[float]]] | None = Field(None, description="Per head, for multi-head models.")
    coverage: list[float] | None = Field(None, description="Per source piece: the attention it received in all "
                                         "(the column sums of `weights`).")
    unattended: list[bool] | None = Field(None, description=f"Per source piece: received less than {UNATTENDED:g} in "
                                          "all (end of sentence and punctuation never): content possibly dropped.")


class Alternative(BaseModel):
    translation: str
    score: float = Field(description="Log-probability divided by the length penalty (higher is better).")
    target_pieces: list[str]
    attention: list[Attention] | None = Field(None, description="One matrix per sentence, in order.")


class Translation(BaseModel):
    text: str
    translation: str
    score: float
    source: Language
    target: Language
    model: str
    source_pieces: list[str]
    target_pieces: list[str]
    attention: list[Attention] | None = Field(None, description="The best alternative's, one matrix per sentence.")
    alternatives: list[Alternative] = Field(description="The n-best list, best first (the first is the translation).")
    truncated: bool = Field(False, description="The text was longer than 200 pieces: only its first 200 were translated.")
    notices: list[str] = Field(default_factory=list, description=(
        "What the model cannot read well in this text: characters it only knows as bytes, the other "
        "language's script mixed in."))


class DetectedLanguage(BaseModel):
    language: Language
    confidence: float = Field(description="How sure the script detector is, 0-100 (the two languages sum to 100).")


class TranslateResponse(BaseModel):
    translations: list[Translation] = Field(description=(
        "One per input text, in order (with format html: one per block of text of the documents, see `inference.markup`)."))
    translatedText: str | list[str] = Field(description="LibreTranslate's field: the translation(s), shaped as `q`.")
    detectedLanguage: DetectedLanguage | list[DetectedLanguage] | None = Field(None, description=(
        "LibreTranslate's field, when source is auto: the source language each text was read as."))
    alternatives: list[str] | list[list[str]] | None = Field(None, description=(
        "LibreTranslate's field, when `alternatives` was asked: the other translations, shaped as `q`."))


class DetectRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    q: str | list[str] = Field(description="A text, or a list of texts detected as one.")
    api_key: str | None = Field(None, max_length=256, description="The API key in the body.")

    @model_validator(mode="after")
    def _valid_unicode(self) -> DetectRequest:
        check_unicode([self.q] if isinstance(self.q, str) else self.q)
        check_unicode([self.api_key or ""], "api_key")
        return self


class LanguageInfo(BaseModel):
    code: Language
    name: str
    targets: list[Language]


class ModelInfo(BaseModel):
    name: str
    direction: str
    source: Language
    target: Language
    mechanism: str
    heads: int | None
    parameters: int
    step: int | None
    scores: dict[str, object]
    lexicon: bool = Field(description="Whether the names lexicon is on by default (a request's `lexicon` overrides it).")


class ErrorBody(BaseModel):
    error: str


def check_unicode(texts: list[str], what: str = "text") -> None:
    """ValueError naming the first text holding an unpaired UTF-16 surrogate (JSON can carry "\\ud800")."""
    for i, text in enumerate(texts):
        bad = next((pos for pos, ch in enumerate(text) if "\ud800" <= ch <= "\udfff"), None)
        if bad is not None:
            raise ValueError(f"{what} {i} holds an unpaired UTF-16 surrogate (U+{ord(text[bad]):04X}) at character "
                             f"{bad}: not a character; send valid Unicode")


class StudyRequest(BaseModel):
    """One text translated by 1-4 runs of the study served with `translate serve --study`."""

    model_config = ConfigDict(extra="forbid")

    q: str = Field(description="The text.")
    runs: list[str] = Field(min_length=1, max_length=4, description="Run names from GET /study, e.g. additive-seed1.")
    beam: int = Field(5, ge=1, le=10, strict=True, description="Beam size; 1 = greedy.")
    attention: bool = Field(True, strict=True, description="Return each run's attention, one matrix per sentence.")

    @model_validator(mode="after")
    def _valid(self) -> StudyRequest:
        check_unicode([self.q])
        if len(set(self.runs)) != len(self.runs):
            raise ValueError("a run is named twice")
        return self
