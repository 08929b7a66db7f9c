"""The training objective and the learning-rate schedule (pure functions of a model, a batch and settings)."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import torch

from translate.config import TrainConfig
from translate.data.batch import Batch
from translate.data.batching import BatchStream
from translate.data.tokenizer import PAD_ID
from translate.model import Seq2Seq
from translate.model.decoder import DecoderOutput


@dataclass
class LossOutput:
    loss: torch.Tensor
    nll: float  # summed over target tokens
    tokens: int
    sentences: int


def compute_loss(model: Seq2Seq, batch: Batch, label_smoothing: float,
                 forward: Callable[..., DecoderOutput] | None = None) -> LossOutput:
    """Token-normalised label-smoothed cross-entropy over non-pad targets, plus any attention loss.
    `forward` runs the model (a DistributedDataParallel wrapper of `model` when data-parallel)."""
    out = (forward or model)(batch.src, batch.src_lens, batch.tgt_in)
    mask = batch.tgt_out != PAD_ID  # (B, T)
    targets = batch.tgt_out[mask]  # (N,)
    # the output layer and softmax run on real tokens only: padding costs nothing
    if out.mixture_states is None:
        nll, uniform = smoothed_nll(model.decoder.generator(out.attentional[mask]).float(), targets)  # (N,), (N,)
    else:  # hard attention, exact marginal over the source position
        log_probs = model.decoder.mixture_log_probs(out.mixture_states[mask], out.weights[mask])
        nll, uniform = -log_probs.gather(-1, targets.unsqueeze(-1)).squeeze(-1), -log_probs.mean(-1)
    per_token = (1 - label_smoothing) * nll + label_smoothing * uniform
    tokens = int(mask.sum())
    loss = per_token.sum() / max(tokens, 1)
    if out.choice_log_probs is not None and out.choice_entropies is not None:
        rewards = out.attentional.new_zeros(mask.shape).masked_scatter(mask, -nll.detach())  # (B, T)
        loss = loss + model.decoder.attention.auxiliary_loss(out.choice_log_probs, out.choice_entropies,
                                                              rewards, mask.float(), _baselines(model, out, batch, mask))
    return LossOutput(loss=loss, nll=float(nll.detach().sum()), tokens=tokens, sentences=batch.src.size(0))


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
    nll, uniform = _SmoothedNLL.apply(logits, targets)
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
