"""Hard attention: the context is one encoder state (Xu et al. 2015, "Show, Attend and Tell", sec. 4.1).

At inference the position is the argmax of α (`marginal` can decode with its mixture instead).
Training, which cannot differentiate through a choice, uses one of:
- `reinforce`: sample i ~ α; the decoder loss gets -(r - b) log αᵢ - λ_H H(α), with reward r the
  log-probability of the reference token and b either a moving-average baseline or, with
  `hard.reinforce_baseline=soft`, the log-probability the expected context Σ αᵢ vᵢ would have given the
  same token at the same step (a per-token baseline: a choice is rewarded only for beating soft
  attention); with probability `soft_mix` a row uses the expectation α instead (Xu et al.'s
  variance reduction), and `soft_anneal_steps` starts that probability at 1 and lowers it
  linearly to `soft_mix` (a curriculum from soft to hard attention);
- `straight-through`: Gumbel-softmax sample y (temperature τ); forward uses one_hot(argmax y),
  backward the gradient of y (Jang et al. 2017), written out here rather than F.gumbel_softmax;
- `marginal`: no sampling at all: the decoder predicts p(y) = Σᵢ αᵢ p(y | xᵢ), one attentional
  output and output distribution per source position, mixed by α (exact marginal likelihood,
  Deng et al. 2018); with input feeding the next step is fed the expected attentional output
  Σᵢ αᵢ oᵢ. The output layer runs once per source position: about S times its usual cost.
  It decodes with the argmax position, or with `hard.marginal_decoding=mixture` with the mixture
  it was trained as (same S-fold cost at inference).
"""

from __future__ import annotations

import torch
import torch.nn.functional as F

from translate.config.schema import AttentionConfig, HardAttentionConfig
from translate.model.attention.base import AttentionOutput, Memory
from translate.model.attention.scoring import SCORERS, Scorer, masked_softmax
from translate.model.attention.soft import Choice, SoftAttention


class HardAttention(SoftAttention):
    baseline: torch.Tensor  # buffers (registered in __init__)
    updates: torch.Tensor

    def __init__(self, scorer: Scorer, memory_size: int, key_value: bool, cfg: HardAttentionConfig) -> None:
        super().__init__(scorer, memory_size, key_value)
        # the estimator and its constants are fixed here, never re-read from strings per step
        self.uses_reinforce = cfg.training == "reinforce"
        self.marginal = cfg.training == "marginal"
        self.mixture_decoding = self.marginal and cfg.marginal_decoding == "mixture"
        self._train_choice = {"reinforce": self._reinforce_choice, "straight-through": self._straight_through,
                              "marginal": self._marginal_choice}[cfg.training]
        self._pick = _sample if cfg.sample == "sample" else _argmax
        self.soft_mix, self.temperature = cfg.soft_mix, cfg.gumbel_temperature
        self.reinforce_weight, self.entropy_weight = cfg.reinforce_weight, cfg.entropy_weight
        self.baseline_decay = cfg.baseline_decay
        self.soft_baseline = self.uses_reinforce and cfg.reinforce_baseline == "soft"
        self.soft_anneal_steps = cfg.soft_anneal_steps
        self.register_buffer("baseline", torch.zeros(()))
        # training updates seen, for the curriculum (kept in checkpoints only when there is one)
        self.register_buffer("updates", torch.zeros((), dtype=torch.long), persistent=cfg.soft_anneal_steps > 0)

    def forward(self, query: torch.Tensor, memory: Memory, coverage: torch.Tensor | None = None) -> AttentionOutput:
        choice = self.normalise(self.scorer(query, memory.keys), memory.mask)
        context = (choice.weights.unsqueeze(1) @ memory.values).squeeze(1)  # (B, Dv): the chosen state
        expected = None
        if self.soft_baseline and choice.probs is not None:  # what soft attention would have read
            expected = (choice.probs.unsqueeze(1) @ memory.values).squeeze(1).detach()
        candidates = memory.values if self.marginal and (self.training or self.mixture_decoding) else None
        return AttentionOutput(context, choice.weights, choice.log_prob, choice.entropy, baseline_context=expected,
                               candidates=candidates)

    def current_soft_mix(self) -> float:
        """The probability that a row uses the expectation: `soft_mix`, or on the curriculum from 1 down to it."""
        if not self.soft_anneal_steps:
            return self.soft_mix
        left = max(0.0, 1.0 - float(self.updates) / self.soft_anneal_steps)
        return self.soft_mix + (1.0 - self.soft_mix) * left

    def normalise(self, scores: torch.Tensor, mask: torch.Tensor) -> Choice:
        if not self.training and not self.mixture_decoding:
            return Choice(weights=_one_hot(scores.masked_fill(~mask, float("-inf")).argmax(-1), scores))
        return self._train_choice(scores, mask)

    def _marginal_choice(self, scores: torch.Tensor, mask: torch.Tensor) -> Choice:
        """α itself: the decoder mixes one prediction per position with these weights."""
        return Choice(weights=masked_softmax(scores, mask))

    def _straight_through(self, scores: torch.Tensor, mask: torch.Tensor) -> Choice:
        uniform = torch.rand_like(scores).clamp(1e-10, 1 - 1e-7)
        gumbel = -torch.log(-torch.log(uniform))  # Gumbel(0, 1) noise
        soft = masked_softmax((scores + gumbel) / self.temperature, mask)
        hard = _one_hot(soft.argmax(-1), soft)
        return Choice(weights=hard - soft.detach() + soft)

    def _reinforce_choice(self, scores: torch.Tensor, mask: torch.Tensor) -> Choice:
        probs = masked_softmax(scores, mask)  # (B, S)
        choice = self._pick(probs.detach())
        weights = _one_hot(choice, probs)
        sampled = torch.ones_like(choice, dtype=torch.bool)
        soft_mix = self.current_soft_mix()
        if soft_mix > 0:
            sampled = torch.rand(choice.shape, device=probs.device) >= soft_mix
            weights = torch.where(sampled.unsqueeze(1), weights, probs)
        log_prob = probs.gather(1, choice.unsqueeze(1)).squeeze(1).clamp_min(1e-20).log()
        entropy = -(probs * probs.clamp_min(1e-20).log()).sum(-1)
        return Choice(weights=weights, log_prob=log_prob * sampled, entropy=entropy, probs=probs.detach())

    def auxiliary_loss(self, log_probs: torch.Tensor, entropies: torch.Tensor, rewards: torch.Tensor,
                       mask: torch.Tensor, baselines: torch.Tensor | None = None) -> torch.Tensor:
        """REINFORCE with a baseline (moving average, or per-token `baselines` from the soft
        prediction) and an entropy bonus; all (B, T), mask on real tokens. Counts one update."""
        if not self.uses_reinforce or not self.training:
            return rewards.new_zeros(())
        self.updates += 1
        rewards = rewards.detach()
        tokens = mask.sum().clamp_min(1)
        if baselines is None:
            advantage = (rewards - self.baseline) * mask
            with torch.no_grad():
                mean_reward = (rewards * mask).sum() / tokens
                self.baseline.mul_(self.baseline_decay).add_((1 - self.baseline_decay) * mean_reward)
        else:
            advantage = (rewards - baselines.detach()) * mask
        policy = -(advantage * log_probs).sum() / tokens
        bonus = (entropies * mask).sum() / tokens
        return self.reinforce_weight * policy - self.entropy_weight * bonus


def _sample(probs: torch.Tensor) -> torch.Tensor:
    return torch.multinomial(probs, 1).squeeze(1)


def _argmax(probs: torch.Tensor) -> torch.Tensor:
    return probs.argmax(-1)


def _one_hot(index: torch.Tensor, like: torch.Tensor) -> torch.Tensor:
    return F.one_hot(index, like.size(-1)).to(like.dtype)


def build(cfg: AttentionConfig, query_size: int, memory_size: int) -> HardAttention:
    """kind=hard (`translate.config.attention`)."""
    return HardAttention(SCORERS[cfg.scorer](query_size, memory_size), memory_size, cfg.mode == "key-value", cfg.hard)
