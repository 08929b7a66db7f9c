"""The JSON the API reads and writes (pydantic: unknown fields, out-of-range values and numbers or
booleans sent as strings are 422)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

Language = Literal["en", "zh"]


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

    @model_validator(mode="after")
    def _consistent(self) -> TranslateRequest:
        for i, text in enumerate(self.texts):
            bad = next((pos for pos, ch in enumerate(text) if "\ud800" <= ch <= "\udfff"), None)
            if bad is not None:
                raise ValueError(f"text {i} holds an unpaired UTF-16 surrogate (U+{ord(text[bad]):04X}) at character "
                                 f"{bad}: not a character; send valid Unicode")
        if self.n_best > self.beam:
            raise ValueError(f"n_best ({self.n_best}) must not exceed beam ({self.beam})")
        if self.target is not None and self.source == self.target:
            raise ValueError(f"source and target are both {self.target}")
        return self

    @property
    def texts(self) -> list[str]:
        return [self.q] if isinstance(self.q, str) else list(self.q)


class Attention(BaseModel):
    weights: list[list[float]] = Field(description="weights[t][s]: target piece t over source piece s (rows sum to 1).")
    heads: list[list[list[float]]] | None = Field(None, description="Per head, for multi-head models.")


class Alternative(BaseModel):
    translation: str
    score: float = Field(description="Log-probability divided by the length penalty (higher is better).")
    target_pieces: list[str]
    attention: Attention | None = None


class Translation(BaseModel):
    text: str
    translation: str
    score: float
    source: Language
    target: Language
    model: str
    source_pieces: list[str]
    target_pieces: list[str]
    attention: Attention | None = None
    alternatives: list[Alternative] = Field(description="The n-best list, best first (the first is the translation).")
    truncated: bool = Field(False, description="The text was longer than 200 pieces: only its first 200 were translated.")
    notices: list[str] = Field(default_factory=list, description=(
        "What the model cannot read well in this text: characters it only knows as bytes, the other "
        "language's script mixed in."))


class TranslateResponse(BaseModel):
    translations: list[Translation] = Field(description="One per input text, in order.")


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
