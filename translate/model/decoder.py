"""Attentional RNN decoder with input feeding (Luong et al. 2015, sec. 3.3).

One `step()` computes a single target position; teacher forcing (`forward`) loops over it and
beam search calls it directly. The attention module is injected: the decoder never asks its kind.
Decoder features (coverage, copy, the lexical model: `translate.model.features`) are built from the
registry and looped over; the decoder never names one.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import cast

import torch
from torch import nn

from translate.config.schema import ModelConfig
from translate.model.attention import Attention, AttentionOutput, Memory
from translate.model.dropout import Dropout
from translate.model.features import Feature, build_features
from translate.tokens import PAD_ID


@dataclass
class DecoderState:
    """hidden / cell (layers, B, H) (cell only for LSTM); feed (B, H) the previous attentional output;
    attended (B, S) the attention each source position received so far (Σₜ αₜ, no gradient: what
    search's coverage penalty reads); features: the decoder features' values by name (B, ...), their
    state and their values fixed per sentence (`translate.model.features.base`)."""

    hidden: torch.Tensor
    cell: torch.Tensor | None
    feed: torch.Tensor
    attended: torch.Tensor
    features: dict[str, torch.Tensor] = field(default_factory=dict)

    def select(self, indices: torch.Tensor) -> DecoderState:
        return DecoderState(hidden=self.hidden.index_select(1, indices),
                            cell=None if self.cell is None else self.cell.index_select(1, indices),
                            feed=self.feed.index_select(0, indices), attended=self.attended.index_select(0, indices),
                            features={name: value.index_select(0, indices) for name, value in self.features.items()})


@dataclass
class DecoderOutput:
    """attentional (B, T, H): tanh(W[c; h]) per step, before the output layer (the caller applies
    `generator` only where needed); attention weights (B, T, S); choice log-probs / entropies
    (B, T) for hard attention; per-head weights (B, T, H, S) for multi-head attention;
    baseline_attentional (B, T, H), no gradient: the attentional output the expected context would
    have given, for attention whose REINFORCE baseline is the soft prediction; mixture_states
    (B, T, S, H) when the prediction is a mixture over source positions weighted by `weights`
    (`Decoder.mixture_log_probs` turns them into log-probabilities); feature_states: the decoder
    features' state after each step (B, T, ...), what their `output` reads in training."""

    attentional: torch.Tensor
    weights: torch.Tensor
    choice_log_probs: torch.Tensor | None
    choice_entropies: torch.Tensor | None
    head_weights: torch.Tensor | None = None
    baseline_attentional: torch.Tensor | None = None
    mixture_states: torch.Tensor | None = None  # (B, T, S, H): one attentional output per source position
    feature_states: dict[str, torch.Tensor] = field(default_factory=dict)  # (B, T, S, ...): each step's feature state


def mixture_log_weights(weights: torch.Tensor) -> torch.Tensor:
    """log α of a mixture over source positions: -inf where α = 0 (padding), with a zero gradient there.
    (A clamped log 1e-30 there makes the output layer's gradients denormal floats, which x86 multiplies
    far more slowly.)"""
    weights = weights.float()
    return weights.clamp_min(1e-30).log().masked_fill(weights == 0, float("-inf"))


class Decoder(nn.Module):
    def __init__(self, cfg: ModelConfig, vocab_size: int, attention: Attention, src_vocab: int = 0) -> None:
        super().__init__()
        hidden = cfg.hidden_size
        self.layers, self.hidden_size, self.input_feeding = cfg.decoder_layers, hidden, cfg.input_feeding
        self.embedding = nn.Embedding(vocab_size, cfg.embedding_size, padding_idx=PAD_ID)
        # N(0, 1/E): with tied output weights, unit-variance embeddings would start with huge logits
        nn.init.normal_(self.embedding.weight, std=cfg.embedding_size ** -0.5)
        self.embedding_dropout = Dropout(cfg.embedding_dropout)
        cell = nn.GRUCell if cfg.rnn_type == "gru" else nn.LSTMCell
        first_input = cfg.embedding_size + (hidden if cfg.input_feeding else 0)
        self.cells = nn.ModuleList([cell(first_input if i == 0 else hidden, hidden) for i in range(self.layers)])
        self.is_lstm = cfg.rnn_type == "lstm"
        self.bridge = nn.Linear(hidden, hidden * self.layers)
        self.attention = attention
        self.combine = nn.Linear(attention.context_size + hidden, hidden, bias=False)
        self.dropout = Dropout(cfg.dropout)
        self.generator = nn.Linear(hidden, vocab_size)
        if cfg.tie_embeddings:
            self.generator.weight = self.embedding.weight
        owned = {id(module) for module in self.modules()}
        self.features: list[Feature] = build_features(cfg, attention, src_vocab, vocab_size)
        for feature in self.features:  # registered here unless a part of the decoder holds it (coverage: the attention)
            if id(feature) not in owned:
                self.add_module(feature.name, feature)

    def feature(self, name: str) -> Feature | None:
        """The feature of that registry name, if the model has it."""
        return next((f for f in self.features if f.name == name), None)

    def init_state(self, final: torch.Tensor, memory: Memory, src: torch.Tensor | None = None) -> DecoderState:
        """final (B, H) encoder summary -> initial state through a tanh bridge; nothing attended yet;
        src (B, S) the source ids, from which features compute their values fixed per sentence."""
        hidden = torch.tanh(self.bridge(final)).view(final.size(0), self.layers, self.hidden_size).transpose(0, 1)
        hidden = hidden.contiguous()
        cell = torch.zeros_like(hidden) if self.is_lstm else None
        values: dict[str, torch.Tensor] = {}
        for feature in self.features:
            values.update(feature.start(memory))
            if src is not None:
                values.update(feature.fixed_values(src))
        return DecoderState(hidden=hidden, cell=cell, feed=final.new_zeros(final.size(0), self.hidden_size),
                            attended=torch.zeros_like(memory.mask, dtype=torch.float32), features=values)

    def _attention_input(self, values: dict[str, torch.Tensor]) -> torch.Tensor | None:
        return next((extra for f in self.features if (extra := f.attention_input(values)) is not None), None)

    def _attentional(self, attended: AttentionOutput, query: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor | None]:
        """tanh(W[c; h]) (N, H) after dropout; for a mixture over positions, one per position
        (N, S, H) too, and their α-weighted mean as the attentional output (what input feeding reads)."""
        if attended.candidates is None:
            return self.dropout(torch.tanh(self.combine(torch.cat([attended.context, query], dim=-1)))), None
        positions = attended.candidates.size(1)
        per_position = self.dropout(torch.tanh(self.combine(torch.cat(
            [attended.candidates, query.unsqueeze(1).expand(-1, positions, -1)], dim=-1))))  # (N, S, H)
        return (attended.weights.unsqueeze(-1) * per_position).sum(1), per_position

    def mixture_log_probs(self, states: torch.Tensor, weights: torch.Tensor) -> torch.Tensor:
        """log Σᵢ αᵢ softmax(W oᵢ): states (N, S, H), weights (N, S) -> (N, V) log-probabilities."""
        log_probs = torch.log_softmax(self.generator(states).float(), dim=-1)  # (N, S, V)
        return torch.logsumexp(log_probs + mixture_log_weights(weights).unsqueeze(-1), dim=1)

    def _step(self, embedded: torch.Tensor, state: DecoderState,
              memory: Memory) -> tuple[torch.Tensor, DecoderState, AttentionOutput, torch.Tensor | None]:
        """embedded (B, E) -> attentional output (B, H), new state, attention output, and the
        per-position outputs (B, S, H) of a mixture (else None)."""
        x = torch.cat([embedded, state.feed], dim=-1) if self.input_feeding else embedded
        hiddens, cells = [], []
        for layer, cell in enumerate(self.cells):
            if self.is_lstm:
                assert state.cell is not None
                h, c = cell(x, (state.hidden[layer], state.cell[layer]))
                cells.append(c)
            else:
                h = cell(x, state.hidden[layer])
            hiddens.append(h)
            x = self.dropout(h) if layer < self.layers - 1 else h
        attended = self.attention(x, memory, self._attention_input(state.features))
        out, mixture = self._attentional(attended, x)  # (B, H)
        values = dict(state.features)
        for feature in self.features:
            values.update(feature.advance(state.features, attended.weights, x, memory))
        new_state = DecoderState(hidden=torch.stack(hiddens), cell=torch.stack(cells) if cells else None, feed=out,
                                 attended=state.attended + attended.weights.detach().float(), features=values)
        return out, new_state, attended, mixture

    def step(self, prev_tokens: torch.Tensor, state: DecoderState, memory: Memory) -> tuple[torch.Tensor, DecoderState, torch.Tensor]:
        """prev_tokens (B,) -> logits (B, V) as the features leave them (log-probabilities for a mixture,
        and (B, V + S) ones for copy attention), new state, attention weights (B, S)."""
        out, state, attended, mixture = self._step(self.embedding_dropout(self.embed(prev_tokens)), state, memory)
        logits = self.generator(out) if mixture is None else self.mixture_log_probs(mixture, attended.weights)
        return self.feature_output(logits, attended.weights, out, state.features), state, attended.weights

    def feature_output(self, logits: torch.Tensor, weights: torch.Tensor, attentional: torch.Tensor,
                       values: dict[str, torch.Tensor]) -> torch.Tensor:
        """The output scores (N, V) as each feature changes them, in the registry's order."""
        for feature in self.features:
            logits = feature.output(logits, weights, attentional, values)
        return logits

    def embed(self, tokens: torch.Tensor) -> torch.Tensor:
        """Target embeddings of tokens, read as the features say (a copied source-only piece as <unk>)."""
        for feature in self.features:
            tokens = feature.decoder_input(tokens)
        embedded: torch.Tensor = self.embedding(tokens)
        return embedded

    def forward(self, tgt_in: torch.Tensor, state: DecoderState, memory: Memory) -> DecoderOutput:
        """Teacher forcing: tgt_in (B, T) -> DecoderOutput; `generator` then maps hidden to logits."""
        embedded = self.embedding_dropout(self.embed(tgt_in))  # (B, T, E)
        if not self.input_feeding and not any(f.sequential for f in self.features):  # a feature's state waits for the last step
            return self._forward_parallel(embedded, state, memory)
        outs, weights, log_probs, entropies, heads, baselines, mixtures = [], [], [], [], [], [], []
        stateful = [name for feature in self.features for name in feature.state]
        states: dict[str, list[torch.Tensor]] = {name: [] for name in stateful}
        for step_input in embedded.unbind(1):  # one backward node for all steps, not one zero-filled (B, T, E) each
            out, state, attended, mixture = self._step(step_input, state, memory)
            outs.append(out)
            for name in stateful:
                states[name].append(state.features[name])
            if mixture is not None:
                mixtures.append(mixture)
            weights.append(attended.weights)
            if attended.head_weights is not None:
                heads.append(attended.head_weights)
            if attended.log_prob is not None and attended.entropy is not None:
                log_probs.append(attended.log_prob)
                entropies.append(attended.entropy)
            if attended.baseline_context is not None:
                baselines.append(self._baseline(attended.baseline_context, state.hidden[-1]))

        def stacked(items: list[torch.Tensor]) -> torch.Tensor | None:
            return torch.stack(items, 1) if items else None

        return DecoderOutput(attentional=torch.stack(outs, dim=1), weights=torch.stack(weights, dim=1),
                             choice_log_probs=stacked(log_probs), choice_entropies=stacked(entropies),
                             head_weights=stacked(heads), baseline_attentional=stacked(baselines),
                             mixture_states=stacked(mixtures),
                             feature_states={name: torch.stack(values, 1) for name, values in states.items()})

    @torch.no_grad()
    def _baseline(self, expected_context: torch.Tensor, query: torch.Tensor) -> torch.Tensor:
        """The attentional output (B, H) of the expected context with the same decoder state (no dropout)."""
        return torch.tanh(self.combine(torch.cat([expected_context, query], dim=-1)))

    def _forward_parallel(self, embedded: torch.Tensor, state: DecoderState, memory: Memory) -> DecoderOutput:
        """Without input feeding no position waits for the previous attentional output: each RNN layer
        runs over the whole sequence in one call, and attention over all positions in one batched call.
        Computes what a loop over `_step` computes (tested)."""
        x = embedded  # (B, T, E)
        for layer, module in enumerate(self.cells):
            cell = cast(nn.RNNCellBase, module)
            params = [cell.weight_ih, cell.weight_hh, cell.bias_ih, cell.bias_hh]
            if self.is_lstm:
                assert state.cell is not None
                hx = (state.hidden[layer:layer + 1], state.cell[layer:layer + 1])
                x, _, _ = torch.lstm(x, hx, params, True, 1, 0.0, self.training, False, True)
            else:
                x, _ = torch.gru(x, state.hidden[layer:layer + 1], params, True, 1, 0.0, self.training, False, True)
            x = self.dropout(x) if layer < self.layers - 1 else x  # (B, T, H)
        batch, length, hidden = x.shape
        queries = x.reshape(batch * length, hidden)
        rows = torch.arange(batch, device=x.device).repeat_interleave(length)  # position -> its sentence
        attended = self.attention(queries, memory.select(rows))
        out, mixture = self._attentional(attended, queries)  # (B*T, H)

        def per_position(t: torch.Tensor | None) -> torch.Tensor | None:
            return None if t is None else t.view(batch, length, *t.shape[1:])

        baseline = None if attended.baseline_context is None else self._baseline(attended.baseline_context, queries)
        return DecoderOutput(attentional=out.view(batch, length, hidden), weights=attended.weights.view(batch, length, -1),
                             choice_log_probs=per_position(attended.log_prob),
                             choice_entropies=per_position(attended.entropy),
                             head_weights=per_position(attended.head_weights),
                             baseline_attentional=per_position(baseline), mixture_states=per_position(mixture))
