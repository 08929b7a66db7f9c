"""The training objective and the learning-rate schedule (pure functions of a model, a batch and settings)."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import torch

from translate.config.schema import TrainConfig
from translate.data.batch import Batch
from translate.data.batching import BatchStream
from translate.model import Seq2Seq
from translate.model.decoder import DecoderOutput, mixture_log_weights
from translate.tokens import BOS_ID, PAD_ID


@dataclass
class LossOutput:
    loss: torch.Tensor
    nll: float  # summed over target tokens
    tokens: int
    sentences: int


def compute_loss(model: Seq2Seq, batch: Batch, label_smoothing: float,
                 forward: Callable[..., DecoderOutput] | None = None) -> LossOutput:
    """Token-normalised label-smoothed cross-entropy over non-pad targets, plus any attention loss
    (hard attention's estimator) and the decoder features' losses (the coverage loss); targets as the
    features rewrite them (copy attention's copy ids).
    `forward` runs the model (a DistributedDataParallel wrapper of `model` when data-parallel)."""
    batch = feature_targets(model, batch)
    out = (forward or model)(batch.src, batch.src_lens, batch.tgt_in)
    mask = batch.tgt_out != PAD_ID  # (B, T)
    targets = batch.tgt_out[mask]  # (N,)
    features = model.decoder.features
    # the output layer and softmax run on real tokens only: padding costs nothing
    if out.mixture_states is None and features:
        scores = model.decoder.feature_output(model.decoder.generator(out.attentional[mask]), out.weights[mask],
                                              out.attentional[mask], _per_token(model, out, batch.src, mask))
        if any(f.extends_output for f in features):  # log p over V + more ids (copy attention's copies)
            log_p = scores.float()
            nll = -log_p.gather(-1, targets.unsqueeze(-1)).squeeze(-1)
            uniform = -log_p[:, :model.decoder.generator.out_features].mean(-1)  # smoothing over the target vocabulary
        else:
            nll, uniform = smoothed_nll(scores.float(), targets)
    elif out.mixture_states is None:
        nll, uniform = smoothed_nll(model.decoder.generator(out.attentional[mask]).float(), targets)  # (N,), (N,)
    else:  # hard attention, exact marginal over the source position
        logits = model.decoder.generator(out.mixture_states[mask]).float()  # (N, S, V): one row per position
        nll, uniform = mixture_nll(logits, mixture_log_weights(out.weights[mask]), targets)
    per_token = (1 - label_smoothing) * nll + label_smoothing * uniform
    tokens = int(mask.sum())
    loss = per_token.sum() / max(tokens, 1)
    if out.choice_log_probs is not None and out.choice_entropies is not None:
        rewards = out.attentional.new_zeros(mask.shape).masked_scatter(mask, -nll.detach())  # (B, T)
        loss = loss + model.decoder.attention.auxiliary_loss(out.choice_log_probs, out.choice_entropies,
                                                              rewards, mask.float(), _baselines(model, out, batch, mask))
    for feature in features:  # per target token, as the cross-entropy (See et al.'s coverage loss)
        term = feature.loss(out.weights, mask)
        if term is not None:
            loss = loss + term / max(tokens, 1)
    return LossOutput(loss=loss, nll=float(nll.detach().sum()), tokens=tokens, sentences=batch.src.size(0))


def feature_targets(model: Seq2Seq, batch: Batch) -> Batch:
    """The batch with its targets as the decoder's features rewrite them (the decoder input follows)."""
    for feature in model.decoder.features:
        tgt_out = feature.targets(batch.src, batch.tgt_out)
        if tgt_out is not None:
            bos = torch.full_like(tgt_out[:, :1], BOS_ID)
            batch = Batch(src=batch.src, src_lens=batch.src_lens, tgt_in=torch.cat([bos, tgt_out[:, :-1]], dim=1),
                          tgt_out=tgt_out)
    return batch


def _per_token(model: Seq2Seq, out: DecoderOutput, src: torch.Tensor, mask: torch.Tensor) -> dict[str, torch.Tensor]:
    """The features' values one row per real target token (N, S, ...): those fixed per sentence, and
    their state after each step, as `Decoder.step` hands them to `output`."""
    values = {name: value[mask] for name, value in out.feature_states.items()}
    for feature in model.decoder.features:
        for name, value in feature.fixed_values(src).items():
            values[name] = value.unsqueeze(1).expand(-1, mask.size(1), *value.shape[1:])[mask]
    return values


class _SmoothedNLL(torch.autograd.Function):
    """-log p(target) and -mean log p over the vocabulary from logits, without materialising log p:
    forward reads the logits (log-sum-exp, the target's logit, the mean); backward writes the gradient
    softmax·(a + b) - b/V - a·onehot in one pass instead of the five of log_softmax, gather and mean."""

    @staticmethod
    def forward(ctx: Any, logits: torch.Tensor, targets: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        lse = torch.logsumexp(logits, dim=-1)  # (N,)
        ctx.save_for_backward(logits, lse, targets)
        return lse - logits.gather(-1, targets.unsqueeze(-1)).squeeze(-1), lse - logits.mean(-1)

    @staticmethod
    def backward(ctx: Any, grad_nll: torch.Tensor, grad_uniform: torch.Tensor) -> tuple[torch.Tensor, None]:
        logits, lse, targets = ctx.saved_tensors
        grad = torch.sub(logits, lse.unsqueeze(-1)).exp_().mul_((grad_nll + grad_uniform).unsqueeze(-1))
        grad.sub_((grad_uniform / logits.size(-1)).unsqueeze(-1))
        return grad.scatter_add_(-1, targets.unsqueeze(-1), -grad_nll.unsqueeze(-1)), None


def smoothed_nll(logits: torch.Tensor, targets: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """logits (N, V), targets (N,) -> (-log p(target), -mean_v log p(v)), each (N,); the label-smoothed
    loss is (1 - ε)·first + ε·second. Same values and gradients as through `log_softmax` (tested)."""
    nll, uniform = _SmoothedNLL.apply(logits, targets)  # type: ignore[no-untyped-call]
    return nll, uniform


class _MixtureNLL(torch.autograd.Function):
    """The same two terms for the mixture p(v) = Σᵢ αᵢ softmax(zᵢ)(v) (exact marginalisation over the
    source position), from logits z (N, S, V) and log α (N, S). Autograd through log_softmax, the
    broadcast add and logsumexp kept five (N, S, V) tensors per update; this keeps the logits only and
    works through them in blocks of rows that stay in cache. With pᵢ = softmax(zᵢ) and the posterior qᵢ(v) = αᵢ pᵢ(v) / p(v): d(-log p(y))/dzᵢ = qᵢ(y)(pᵢ - onehot(y)), d(-mean log p)/dzᵢ =
    (pᵢ Σ_v qᵢ(v) - qᵢ) / V; d/dlog αᵢ: -qᵢ(y) and -Σ_v qᵢ(v) / V."""

    BLOCK = 32  # rows of (S, V) per block

    @staticmethod
    def forward(ctx: Any, logits: torch.Tensor, log_weights: torch.Tensor,
                targets: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        lse_blocks, mixture_blocks = [], []
        for z, w in zip(logits.split(_MixtureNLL.BLOCK), log_weights.split(_MixtureNLL.BLOCK)):
            lse_blocks.append(torch.logsumexp(z, dim=-1))  # (n, S): log Σ_v exp zᵢ(v)
            mixture_blocks.append(torch.logsumexp(z - (lse_blocks[-1] - w).unsqueeze(-1), dim=1))  # (n, V): log p(v)
        lse, mixture = torch.cat(lse_blocks), torch.cat(mixture_blocks)
        ctx.save_for_backward(logits, log_weights, targets, lse, mixture)
        return -mixture.gather(-1, targets.unsqueeze(-1)).squeeze(-1), -mixture.mean(-1)

    @staticmethod
    def backward(ctx: Any, grad_nll: torch.Tensor, grad_uniform: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, None]:
        logits, log_weights, targets, lse, mixture = ctx.saved_tensors
        grad_logits, grad_weights = torch.empty_like(logits), torch.empty_like(log_weights)
        vocab, positions = logits.size(-1), logits.size(1)
        for start in range(0, logits.size(0), _MixtureNLL.BLOCK):
            rows = slice(start, start + _MixtureNLL.BLOCK)  # views: no copies in or out
            log_p = torch.sub(logits[rows], lse[rows].unsqueeze(-1), out=grad_logits[rows])  # (n, S, V) log pᵢ
            posterior = (log_p + (log_weights[rows].unsqueeze(-1) - mixture[rows].unsqueeze(1))).exp_()  # qᵢ(v)
            p = log_p.exp_()
            target = targets[rows].view(-1, 1, 1).expand(-1, positions, 1)
            at_target = posterior.gather(-1, target)  # (n, S, 1)
            a, b = grad_nll[rows].view(-1, 1, 1), (grad_uniform[rows] / vocab).view(-1, 1, 1)
            scale = a * at_target + b * posterior.sum(-1, keepdim=True)
            p.mul_(scale).sub_(posterior.mul_(b)).scatter_add_(-1, target, -a * at_target)
            grad_weights[rows] = -scale.squeeze(-1)
        return grad_logits, grad_weights, None


def mixture_nll(logits: torch.Tensor, log_weights: torch.Tensor, targets: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """logits (N, S, V), log α (N, S), targets (N,) -> (-log p(target), -mean_v log p(v)) of the mixture
    p = Σᵢ αᵢ softmax(logitsᵢ), each (N,). Same values and gradients as autograd through the mixture (tested)."""
    nll, uniform = _MixtureNLL.apply(logits, log_weights, targets)  # type: ignore[no-untyped-call]
    return nll, uniform


@torch.no_grad()
def _baselines(model: Seq2Seq, out: DecoderOutput, batch: Batch, mask: torch.Tensor) -> torch.Tensor | None:
    """Per-token rewards (B, T) of the soft prediction, when the attention computed one."""
    if out.baseline_attentional is None:
        return None
    log_probs = torch.log_softmax(model.decoder.generator(out.baseline_attentional[mask]).float(), dim=-1)
    reward = log_probs.gather(-1, batch.tgt_out[mask].unsqueeze(-1)).squeeze(-1)
    return out.attentional.new_zeros(mask.shape).masked_scatter(mask, reward)


def lr_factor(step: int, train: TrainConfig) -> float:
    """Linear warm-up, then inverse-sqrt / cosine / constant, floored at min_learning_rate."""
    warm = max(train.warmup_steps, 1)
    if step < warm:
        return (step + 1) / warm
    if train.schedule == "inverse-sqrt":
        factor = math.sqrt(warm / (step + 1))
    elif train.schedule == "cosine" and train.max_steps > warm:
        factor = 0.5 * (1 + math.cos(math.pi * min(1.0, (step - warm) / (train.max_steps - warm))))
    else:
        factor = 1.0
    return max(factor, train.min_learning_rate / train.learning_rate)


@torch.no_grad()
def dev_loss(model: Seq2Seq, stream: BatchStream, device: torch.device) -> float:
    model.eval()
    nll, tokens = 0.0, 0
    for indices in stream.epoch_batches(0):
        out = compute_loss(model, stream.batch(indices).to(device), 0.0)
        nll, tokens = nll + out.nll, tokens + out.tokens
    model.train()
    return nll / max(tokens, 1)
