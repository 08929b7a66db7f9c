"""One typed run configuration: frozen dataclasses whose choices are typed and validated once.

Reading files and `--set` overrides lives in `translate.config.loading`; this module holds only the
shapes, their rules, and the artifact part of a run (what a checkpoint carries).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, get_args

from translate.config.attention import ATTENTION_KINDS
from translate.config.features import FEATURES, check_features
from translate.errors import ConfigError

Direction = Literal["en-zh", "zh-en"]
Split = Literal["dev", "test"]
Device = Literal["auto", "cpu", "cuda"]
Engine = Literal["auto", "torch", "onnx"]  # what runs a translation (translate.inference.router)
AttentionKind = str  # a registered kind (translate.config.attention.ATTENTION_KINDS)
ScorerName = Literal["additive", "bilinear", "dot", "scaled-dot"]
MULTIHEAD_SCORERS: tuple[str, ...] = ("additive", "dot", "scaled-dot")  # bilinear has no per-head form
LANGS = ("en", "zh")
MAX_WIDTH, MAX_LAYERS = 16_384, 16  # sanity limits: a checkpoint's config is untrusted data
ARTIFACT_FORMAT = 3  # version of the checkpoint layout written by translate.checkpoint.store (3: attention settings by kind)


def _check(condition: bool, name: str, value: Any, rule: str) -> None:
    if not condition:
        raise ConfigError(f"{name}={value!r} is invalid: {rule}")


class _Languages:
    """src_lang / tgt_lang of a config that has a `direction` ("en-zh" -> "en", "zh")."""

    direction: str

    @property
    def src_lang(self) -> str:
        return self.direction.split("-")[0]

    @property
    def tgt_lang(self) -> str:
        return self.direction.split("-")[1]


@dataclass(frozen=True)
class DataConfig(_Languages):
    """Where the corpus is and how it is cleaned and batched."""

    data_dir: str = ""  # "" = the bundled Tatoeba split (see `translate info`); else a folder
    format: Literal["tsv", "text", "jsonl", "hf"] = "tsv"
    train: str = "train.tsv"
    dev: str = "dev.tsv"
    test: str = "test.tsv"
    hf_name: str = ""  # for format=hf: a dataset on the Hugging Face hub (needs internet)
    hf_config: str = ""  # its configuration, e.g. "en-zh" for Helsinki-NLP/opus-100
    direction: Direction = "en-zh"
    max_chars: int = 300  # training pairs with a longer side are dropped
    max_ratio: float = 9.0  # training pairs whose length ratio exceeds this are dropped
    max_tokens: int = 100  # training pairs longer than this many pieces are dropped
    batch_tokens: int = 600  # padded tokens per training batch (target or source side, whichever is longer)
    bucket_batches: int = 50  # batches sorted together for length bucketing
    # subword regularisation: each training batch is segmented anew by sampling SentencePiece's segmentations
    # (unigram: smoothing alpha, e.g. 0.1; bpe: merge dropout, e.g. 0.1); 0 = the one best segmentation
    subword_alpha: float = 0.0
    check_columns: bool = True  # stop when the en column looks Chinese (swapped columns)
    cache_dir: str = ""  # "" = the per-user cache ($TRANSLATE_CACHE, else ~/.cache/translate)

    def __post_init__(self) -> None:
        _check(self.max_chars > 0, "data.max_chars", self.max_chars, "must be > 0")
        _check(self.max_ratio >= 1, "data.max_ratio", self.max_ratio, "must be >= 1")
        _check(self.max_tokens > 1, "data.max_tokens", self.max_tokens, "must be > 1")
        _check(self.batch_tokens >= self.max_tokens, "data.batch_tokens", self.batch_tokens,
               f"must be >= data.max_tokens ({self.max_tokens})")
        _check(self.bucket_batches >= 1, "data.bucket_batches", self.bucket_batches, "must be >= 1")
        _check(0 <= self.subword_alpha <= 1, "data.subword_alpha", self.subword_alpha, "must be in [0, 1]")
        _check(self.format != "hf" or bool(self.hf_name), "data.hf_name", self.hf_name,
               "needed when data.format=hf")


@dataclass(frozen=True)
class TokenizerConfig:
    """SentencePiece settings, one model per language, trained on the training split only."""

    model_type: Literal["unigram", "bpe", "char"] = "unigram"
    en_vocab_size: int = 4000
    zh_vocab_size: int = 4000
    # Chinese: keep full-width punctuation as the references have it (NFKC would rewrite it).
    zh_normalization: Literal["identity", "nmt_nfkc", "nfkc"] = "identity"
    en_normalization: Literal["identity", "nmt_nfkc", "nfkc"] = "nmt_nfkc"
    zh_character_coverage: float = 1.0
    byte_fallback: bool = True  # unseen characters become bytes, not <unk>

    def __post_init__(self) -> None:
        for lang in LANGS:
            size = getattr(self, f"{lang}_vocab_size")
            _check(size >= 50, f"tokenizer.{lang}_vocab_size", size, "must be >= 50")
        _check(0.9 <= self.zh_character_coverage <= 1.0, "tokenizer.zh_character_coverage",
               self.zh_character_coverage, "must be in [0.9, 1.0]")

    def vocab_size(self, lang: str) -> int:
        return int(getattr(self, f"{lang}_vocab_size"))


@dataclass(frozen=True)
class MultiheadConfig:
    """What only multi-head attention reads (`model.attention.kind=multihead`)."""

    heads: int = 4
    layer_norm: bool = False  # layer normalisation of the query and of the context (RNMT+)

    def __post_init__(self) -> None:
        _check(1 <= self.heads <= MAX_WIDTH, "model.attention.multihead.heads", self.heads, f"must be in [1, {MAX_WIDTH}]")


@dataclass(frozen=True)
class HardAttentionConfig:
    """What only hard attention reads (`model.attention.kind=hard`): how the one position is trained and decoded."""

    # marginal: exact marginal likelihood over the position (Deng et al. 2018), argmax at inference
    training: Literal["reinforce", "straight-through", "marginal"] = "reinforce"
    # marginal only: decode with the argmax position (one state per step), or with the mixture it was
    # trained as (p(y) = Σᵢ αᵢ p(y | xᵢ): the output layer once per source position)
    marginal_decoding: Literal["argmax", "mixture"] = "argmax"
    sample: Literal["sample", "argmax"] = "sample"  # how the position is picked while training
    reinforce_weight: float = 1.0
    entropy_weight: float = 0.01
    baseline_decay: float = 0.95
    soft_mix: float = 0.5  # Xu et al. 2015: with this probability use the expectation instead
    # REINFORCE baseline: a moving average of the reward, or the reward the soft (expected) context
    # would have earned at the same step (per token; Deng et al. 2018 compare against soft attention)
    reinforce_baseline: Literal["moving-average", "soft"] = "moving-average"
    soft_anneal_steps: int = 0  # curriculum: the soft-mix probability falls from 1 to soft_mix over this many updates
    gumbel_temperature: float = 1.0

    def __post_init__(self) -> None:
        name = "model.attention.hard."
        _check(0 <= self.soft_mix <= 1, name + "soft_mix", self.soft_mix, "must be in [0, 1]")
        _check(self.marginal_decoding == "argmax" or self.training == "marginal", name + "marginal_decoding",
               self.marginal_decoding, f"mixture needs {name}training=marginal")
        _check(self.soft_anneal_steps >= 0, name + "soft_anneal_steps", self.soft_anneal_steps, "must be >= 0")
        _check(0 <= self.baseline_decay < 1, name + "baseline_decay", self.baseline_decay, "must be in [0, 1)")
        _check(self.gumbel_temperature > 0, name + "gumbel_temperature", self.gumbel_temperature, "must be > 0")


@dataclass(frozen=True)
class CoverageConfig:
    """A memory of where attention has gone (`model.attention.coverage`): fed to the additive scorer
    (Tu et al. 2016) and/or penalised in the loss (See et al. 2017). Soft attention only."""

    # accumulated: c = the sum of past attention per source position (See et al. 2017; Tu et al.'s
    # linguistic coverage without fertility); neural: c updated by a GRU from the attention, the encoder
    # state and the decoder state (Tu et al. 2016, sec. 3.1.2); off: no coverage in the score
    kind: Literal["off", "accumulated", "neural"] = "off"
    size: int = 10  # neural: the width of each position's coverage vector (Tu et al. use 10)
    loss: float = 0.0  # weight of the coverage loss Σₜ Σᵢ min(αₜᵢ, cₜᵢ) (See et al. 2017, eq. 12; they use 1)

    def __post_init__(self) -> None:
        _check(1 <= self.size <= MAX_WIDTH, "model.attention.coverage.size", self.size, f"must be in [1, {MAX_WIDTH}]")
        _check(self.loss >= 0, "model.attention.coverage.loss", self.loss, "must be >= 0")

    @property
    def used(self) -> bool:
        return self.kind != "off" or self.loss > 0


@dataclass(frozen=True)
class AttentionConfig:
    """Which attention the decoder uses: a kind of the registry (`translate.config.attention`). Settings
    that only one kind reads live in its own section (`multihead`, `hard`)."""

    kind: AttentionKind = "soft"
    scorer: ScorerName = "additive"
    mode: Literal["plain", "key-value"] = "plain"
    multihead: MultiheadConfig = field(default_factory=MultiheadConfig)
    hard: HardAttentionConfig = field(default_factory=HardAttentionConfig)
    coverage: CoverageConfig = field(default_factory=CoverageConfig)

    def __post_init__(self) -> None:
        _check(self.kind != "multihead" or self.scorer in MULTIHEAD_SCORERS, "model.attention.scorer", self.scorer,
               f"not available with kind=multihead; valid: {', '.join(MULTIHEAD_SCORERS)}")
        for name, choices in (("kind", tuple(sorted(ATTENTION_KINDS))), ("scorer", get_args(ScorerName))):
            value = getattr(self, name)
            _check(value in choices, f"model.attention.{name}", value, f"choose one of {', '.join(choices)}")
        _check(self.hard.marginal_decoding == "argmax" or self.kind == "hard", "model.attention.hard.marginal_decoding",
               self.hard.marginal_decoding, "mixture needs model.attention.kind=hard")
        _check(self.coverage.kind == "off" or (self.kind == "soft" and self.scorer == "additive"),
               "model.attention.coverage.kind", self.coverage.kind,
               "needs model.attention.kind=soft with scorer additive (coverage enters the additive score; "
               f"kind={self.kind}, scorer={self.scorer} has no place for it)")
        _check(self.coverage.loss == 0 or self.kind in ("soft", "multihead"), "model.attention.coverage.loss",
               self.coverage.loss, f"needs soft or multihead attention (kind={self.kind} "
               + ("has no attention weights)" if self.kind == "none" else "chooses one position: nothing to spread)"))

    def for_kind(self) -> AttentionConfig:
        """The same settings with the other kinds' sections at their defaults (they are never read)."""
        return dataclasses.replace(self, **{section: type(getattr(self, section))()
                                            for section in ("multihead", "hard") if self.kind != section})

    def relevant(self) -> dict[str, Any]:
        """The settings this kind reads: the other kinds' sections left out, and coverage when unused
        (what a checkpoint stores)."""
        data = dataclasses.asdict(self)
        for section in ("multihead", "hard"):
            if self.kind != section:
                del data[section]
        if not self.coverage.used:
            del data["coverage"]
        return data


@dataclass(frozen=True)
class ModelConfig:
    """Encoder-decoder sizes. The encoder is bidirectional: hidden_size/2 per direction."""

    rnn_type: Literal["gru", "lstm"] = "gru"
    embedding_size: int = 256
    hidden_size: int = 256
    encoder_layers: int = 1
    decoder_layers: int = 1
    bidirectional: bool = True
    dropout: float = 0.3
    embedding_dropout: float = 0.2
    tie_embeddings: bool = True  # share the target embedding with the output layer
    input_feeding: bool = True
    encoder_self_attention: bool = False
    self_attention_heads: int = 4
    # copy attention: a switch mixes the output layer with the attention over the source pieces, which
    # a translation may copy (names, numbers, codes: `translate.model.copy`); PyTorch engine only
    copy_attention: bool = False
    # decoder features turned on by name, comma-separated (`translate.config.features`): "lexical" adds
    # Nguyen & Chiang's lexical model (`translate.model.features.lexical`)
    features: str = ""
    attention: AttentionConfig = field(default_factory=AttentionConfig)

    def __post_init__(self) -> None:
        for name, limit in (("embedding_size", MAX_WIDTH), ("hidden_size", MAX_WIDTH), ("encoder_layers", MAX_LAYERS),
                            ("decoder_layers", MAX_LAYERS), ("self_attention_heads", MAX_WIDTH)):
            _check(1 <= getattr(self, name) <= limit, f"model.{name}", getattr(self, name), f"must be in [1, {limit}]")
        for name in ("dropout", "embedding_dropout"):
            _check(0 <= getattr(self, name) < 1, f"model.{name}", getattr(self, name), "must be in [0, 1)")
        _check(not self.bidirectional or self.hidden_size % 2 == 0, "model.hidden_size",
               self.hidden_size, "must be even for a bidirectional encoder")
        _check(not self.tie_embeddings or self.embedding_size == self.hidden_size,
               "model.tie_embeddings", self.tie_embeddings,
               f"needs model.embedding_size == model.hidden_size ({self.embedding_size} != {self.hidden_size})")
        if self.attention.kind == "multihead":
            _check(self.hidden_size % self.attention.multihead.heads == 0, "model.attention.multihead.heads",
                   self.attention.multihead.heads, f"must divide model.hidden_size ({self.hidden_size})")
        attention = self.attention
        _check(not self.copy_attention or (attention.kind != "none" and not (
            attention.kind == "hard" and attention.hard.training == "marginal")), "model.copy_attention",
               self.copy_attention, f"needs attention weights over the source (kind={attention.kind}"
               + (")" if attention.kind == "none" else ", training=marginal predicts a mixture over positions)"))
        check_features(self)
        if self.encoder_self_attention:
            _check(self.hidden_size % self.self_attention_heads == 0, "model.self_attention_heads",
                   self.self_attention_heads, f"must divide model.hidden_size ({self.hidden_size})")

    @property
    def mechanism(self) -> str:
        """A short human name of the attention, e.g. "soft additive", "multihead additive x4"."""
        name = ATTENTION_KINDS[self.attention.kind].name(self.attention)
        for info in FEATURES.values():
            name += f" + {info.name(self)}" if info.enabled(self) else ""
        return name + (" + encoder self-attention" if self.encoder_self_attention else "")


@dataclass(frozen=True)
class TrainConfig:
    """Optimiser, schedule, budget, validation and checkpointing."""

    seed: int = 1
    learning_rate: float = 4e-3  # with 600-token batches: the best dev BLEU after 5 min (docs/results/recipe.md)
    min_learning_rate: float = 1e-4
    weight_decay: float = 1e-4
    warmup_steps: int = 300
    schedule: Literal["inverse-sqrt", "cosine", "constant"] = "inverse-sqrt"
    label_smoothing: float = 0.1
    clip_norm: float = 1.0
    max_steps: int = 0  # 0 = no step limit
    max_minutes: float = 0.0  # 0 = no time limit
    # target tokens trained on, all processes together; 0 = no token limit. A budget a larger batch cannot
    # buy more data with (a study that tunes data.batch_tokens counts its budget so: --budget-tokens)
    max_tokens: int = 0
    max_epochs: int = 0  # 0 = no epoch limit
    log_every: int = 50
    validate_every: int = 500
    patience: int = 8  # validations without dev BLEU improvement before stopping; 0 = never
    average_last: int = 4  # average this many latest validation checkpoints at the end; <= 1 = off
    valid_beam: int = 1  # beam used for dev BLEU during training (1 = greedy, fastest)
    threads: int = 0  # torch CPU threads; 0 = leave as is
    tensorboard: bool = False
    max_bad_losses: int = 20  # consecutive NaN/inf losses before training stops
    init_from: str = ""  # fine-tune: start from this checkpoint's weights and tokenizers (and its model settings)
    # with init_from: "config" keeps this run's model.attention (e.g. hard attention warm-started from a soft model);
    # the checkpoint's tensors fill every place that fits, new attention parameters start from their initialisation
    init_attention: Literal["checkpoint", "config"] = "checkpoint"
    # bf16 autocast of the training forward pass: auto = on CUDA only (slower on CPUs without bf16 matrix units)
    amp: Literal["auto", "off", "bf16"] = "auto"

    def __post_init__(self) -> None:
        _check(self.learning_rate > 0, "train.learning_rate", self.learning_rate, "must be > 0")
        _check(0 <= self.min_learning_rate <= self.learning_rate, "train.min_learning_rate",
               self.min_learning_rate, "must be in [0, train.learning_rate]")
        _check(0 <= self.label_smoothing < 1, "train.label_smoothing", self.label_smoothing, "must be in [0, 1)")
        _check(self.clip_norm > 0, "train.clip_norm", self.clip_norm, "must be > 0")
        for name in ("max_steps", "max_epochs", "max_tokens", "warmup_steps", "patience", "threads"):
            _check(getattr(self, name) >= 0, f"train.{name}", getattr(self, name), "must be >= 0")
        _check(self.max_minutes >= 0, "train.max_minutes", self.max_minutes, "must be >= 0")
        for name in ("log_every", "validate_every", "valid_beam", "max_bad_losses"):
            _check(getattr(self, name) >= 1, f"train.{name}", getattr(self, name), "must be >= 1")


@dataclass(frozen=True)
class DecodeConfig:
    """Search settings for translation and evaluation."""

    beam_size: int = 5
    length_penalty: float = 1.0  # GNMT alpha; 0 = raw log-probability
    # GNMT beta: + beta * sum_j log(min(attention source position j received, 1)) ranks a hypothesis that left
    # source words unattended lower (dropped content); 0 = off; the same for every hypothesis without attention
    coverage_penalty: float = 0.0
    max_len_a: float = 2.0  # max output length = a * source length + b
    max_len_b: int = 10
    n_best: int = 1
    batch_size: int = 256  # sentences per decoding batch (sorted by length: larger is faster on CPU)
    copy_digits: bool = True  # numbers the model changed are copied back from the source (data/normalize.py)
    # no stutter: the search never emits a token that would say a run twice in a row (他工作工作。) unless
    # the source repeats itself (inference/search/rules.py RepeatBan, data/repeats.py)
    block_repeats: bool = False
    # > 0: no n-gram said twice: the search never emits a piece that would complete an n-gram of this many
    # target pieces (two letters or more) that the translation already holds anywhere (她每天早上都每天早上),
    # unless the source says an n-gram of its words twice (fairseq's --no-repeat-ngram-size); 0 = off
    block_ngrams: int = 0
    # negation kept: where the source negates (not, never, no…; 不, 没, 别…: data/negation.py) and the best
    # translation says no "not", the beam's best translation that does is taken (汤姆真爱玛丽。 -> 汤姆不是真爱玛丽。)
    keep_negation: bool = False
    # no negation added: the beam's translations that negate where the source neither negates nor says "not" in a
    # word of its own ("dislike", 单身) come after the others (data/negation.py adds_negation: 我的网真不是很慢。
    # for "The internet is very slow today.")
    no_added_negation: bool = False
    # numbers survive: a translation that lost or changed a number of the source's digits is searched again,
    # bound to write it (inference/glossary.py Numbers; the lexically constrained search)
    keep_numbers: bool = False
    # no number added: the beam's translations that write a number in digits which the source does not say
    # (data/quantities.py numbers_added: 1010分钟 for "a ten-minute walk") come after those that write none
    no_added_numbers: bool = False
    # an English translation's beam ranked with those that spell a made-up word ("Is itn't dark?", "Beappy your
    # birthday!") after the others (data/made_up.py made_up_words)
    no_made_up_words: bool = False
    # Chinese sources' numerals of 11 and more read as digits (三百六十五天 -> 365天; data/quantities.py
    # numerals_as_digits), which the model copies where it garbled the numerals ("A year has three six days.")
    numerals_as_digits: bool = False
    # large numbers read as stand-ins: 12,000, 8 million, 800万 searched as 20 (a number the model copies and
    # places) and written back as the target writes them (12000, 800万; 12,000, 8 million); with names "standins"
    # (inference/standins.py, data/quantities.py carried_numbers)
    number_standins: bool = False
    # dates and times of day read as stand-ins: March 12, 三月十二号 searched as Sunday, 7:40 p.m., 晚上七点四十 as
    # noon (which the models translate and place) and written back as the target writes them (3月12日, 晚上7点40分;
    # "March 12", "7:40 p.m."); with names "standins" (inference/standins.py, data/dates.py)
    date_standins: bool = False
    # with date_standins, dates and times said in words read as such too: "the tenth of May", "half past six", "a
    # quarter to four" (the models garbled them: 课班结束于4四分, 六点 for "half past six"; data/dates.py)
    dates_in_words: bool = False
    # clocks alone read as stand-ins: 17:30, 6:15 searched as "six o'clock" (六点) and written back as they are (the
    # models copy the digits but garble the words around them: 我的航班22:40年降落); with names "standins"
    # (data/dates.py, inference/standins.py)
    clock_standins: bool = False
    # with date_standins, a time of day read as the clocks' stand-ins ("six o'clock", 六点; then "seven o'clock")
    # in place of noon and midnight, which the models garble or drop: "at midnight" is in one training sentence
    # ("I work from 9 am to 5 pm." searched as "from noon to midnight": 我在中午十午夜工作)
    times_as_clocks: bool = False
    # a number said once: the words the model wrote for a number's first pieces before its copied digits
    # dropped (一年有三365天。 -> 一年有365天。, "nine90 years" -> "90 years"; data/quantities.py
    # without_doubled_numbers)
    no_doubled_numbers: bool = False
    # a Chinese translation's half-width , ? ! : ; ( ) next to Han characters full-width, as the training data's
    # Chinese writes them 96 % of the time (我爱这地方! -> 我爱这地方！; data/normalize.py chinese_punctuation)
    chinese_punctuation: bool = False
    # the names lexicon (CC-CEDICT's names, data/cedict-names) as a glossary by default: a sentence whose
    # translation lacks a name's counterpart is decoded again with it (inference/glossary.py); --no-lexicon
    lexicon: bool = False
    # how the lexicon's people and places reach the translation: "forced" = bound into the search as
    # terms; "standins" = read as names the model knows (Tom, Boston) and written back, Chinese people in
    # pinyin too (inference/standins.py)
    names: Literal["forced", "standins"] = "forced"
    # > 0: draw each token at this temperature instead of searching (varied translations, e.g. sampled
    # back-translation of training text); seeded by decode.seed; 0 = beam search / greedy
    sample: float = 0.0
    seed: int = 1

    def __post_init__(self) -> None:
        _check(self.beam_size >= 1, "decode.beam_size", self.beam_size, "must be >= 1")
        _check(self.sample >= 0, "decode.sample", self.sample, "must be >= 0 (0 = search, no sampling)")
        _check(self.sample == 0 or self.n_best == 1, "decode.n_best", self.n_best,
               "must be 1 when sampling (decode.sample > 0): draw again with another decode.seed")
        _check(1 <= self.n_best <= self.beam_size, "decode.n_best", self.n_best,
               f"must be in [1, decode.beam_size={self.beam_size}]")
        _check(self.length_penalty >= 0, "decode.length_penalty", self.length_penalty, "must be >= 0")
        _check(self.coverage_penalty >= 0, "decode.coverage_penalty", self.coverage_penalty, "must be >= 0 (0 = off)")
        _check(self.max_len_a >= 0 and self.max_len_b >= 1, "decode.max_len_b", self.max_len_b,
               "max_len_a must be >= 0 and max_len_b >= 1")
        _check(self.batch_size >= 1, "decode.batch_size", self.batch_size, "must be >= 1")
        _check(self.block_ngrams == 0 or self.block_ngrams >= 2, "decode.block_ngrams", self.block_ngrams,
               "must be 0 (off) or >= 2 (pieces in an n-gram that may not be said twice)")


@dataclass(frozen=True)
class ArtifactConfig(_Languages):
    """What a checkpoint stores: enough to rebuild the translator, nothing about the training machine."""

    format_version: int = ARTIFACT_FORMAT
    direction: Direction = "en-zh"
    model: ModelConfig = field(default_factory=ModelConfig)
    tokenizer: TokenizerConfig = field(default_factory=TokenizerConfig)
    decode: DecodeConfig = field(default_factory=DecodeConfig)

    def to_dict(self) -> dict[str, Any]:
        """As stored in config.json: the attention sections of other kinds left out (they load as defaults)."""
        data = dataclasses.asdict(self)
        data["model"]["attention"] = self.model.attention.relevant()
        if not self.model.copy_attention:  # off: config.json as before the option
            del data["model"]["copy_attention"]
        if not self.model.features:  # none: config.json as before the option
            del data["model"]["features"]
        return data


@dataclass(frozen=True)
class RunConfig:
    """Everything a run needs; stored in runs/<name>/config.yaml (checkpoints keep only `artifact()`)."""

    name: str = "default"
    runs_dir: str = "runs"
    device: Device = "auto"  # auto = CUDA when available, else CPU
    data: DataConfig = field(default_factory=DataConfig)
    tokenizer: TokenizerConfig = field(default_factory=TokenizerConfig)
    model: ModelConfig = field(default_factory=ModelConfig)
    train: TrainConfig = field(default_factory=TrainConfig)
    decode: DecodeConfig = field(default_factory=DecodeConfig)

    def __post_init__(self) -> None:
        _check(self.data.subword_alpha == 0 or self.tokenizer.model_type != "char", "data.subword_alpha",
               self.data.subword_alpha, "needs tokenizer.model_type unigram or bpe (a char model has one segmentation)")

    @property
    def run_dir(self) -> Path:
        return Path(self.runs_dir) / self.name

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    def artifact(self) -> ArtifactConfig:
        """What a checkpoint of this run stores (attention sections of other kinds at their defaults)."""
        model = dataclasses.replace(self.model, attention=self.model.attention.for_kind())
        return ArtifactConfig(direction=self.data.direction, model=model, tokenizer=self.tokenizer, decode=self.decode)
