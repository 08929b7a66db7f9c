"""Hard attention: the context is one encoder state (Xu et al. 2015, "Show, Attend and Tell", sec. 4.1).

At inference the position is the argmax of α. Training, which cannot differentiate through a
choice, uses one of:
- `reinforce`: sample i ~ α; the decoder loss gets -(r - b) log αᵢ - λ_H H(α), with reward r the
  log-probability of the reference token and b a moving-average baseline; with probability
  `soft_mix` a row uses the expectation α instead (Xu et al.'s variance reduction);
- `straight-through`: Gumbel-softmax sample y (temperature τ); forward uses one_hot(argmax y),
  backward the gradient of y (Jang et al. 2017), written out here rather than F.gumbel_softmax.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F

from translate.config import AttentionConfig
from translate.model.attention.scoring import Scorer, masked_softmax
from translate.model.attention.soft import Choice, SoftAttention


class HardAttention(SoftAttention):
    def __init__(self, scorer: Scorer, memory_size: int, key_value: bool, cfg: AttentionConfig) -> None:
        super().__init__(scorer, memory_size, key_value)
        self.cfg = cfg
        self.register_buffer("baseline", torch.zeros(()))

    def normalise(self, scores: torch.Tensor, mask: torch.Tensor) -> Choice:
        probs = masked_softmax(scores, mask)  # (B, S)
        if not self.training:
            return Choice(weights=_one_hot(probs.argmax(-1), probs))
        if self.cfg.hard_training == "straight-through":
            return Choice(weights=self._straight_through(scores, mask))
        return self._reinforce_choice(probs)

    def _straight_through(self, scores: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        uniform = torch.rand_like(scores).clamp(1e-10, 1 - 1e-7)
        gumbel = -torch.log(-torch.log(uniform))  # Gumbel(0, 1) noise
        soft = masked_softmax((scores + gumbel) / self.cfg.gumbel_temperature, mask)
        hard = _one_hot(soft.argmax(-1), soft)
        return hard - soft.detach() + soft

    def _reinforce_choice(self, probs: torch.Tensor) -> Choice:
        if self.cfg.hard_sample == "sample":
            choice = torch.multinomial(probs.detach(), 1).squeeze(1)
        else:
            choice = probs.detach().argmax(-1)
        weights = _one_hot(choice, probs)
        sampled = torch.ones_like(choice, dtype=torch.bool)
        if self.cfg.soft_mix > 0:
            sampled = torch.rand(choice.shape, device=probs.device) >= self.cfg.soft_mix
            weights = torch.where(sampled.unsqueeze(1), weights, probs)
        log_prob = probs.gather(1, choice.unsqueeze(1)).squeeze(1).clamp_min(1e-20).log()
        entropy = -(probs * probs.clamp_min(1e-20).log()).sum(-1)
        return Choice(weights=weights, log_prob=log_prob * sampled, entropy=entropy)

    def auxiliary_loss(self, log_probs: torch.Tensor, entropies: torch.Tensor, rewards: torch.Tensor,
                       mask: torch.Tensor) -> torch.Tensor:
        """REINFORCE with a moving-average baseline and an entropy bonus; all (B, T), mask on real tokens."""
        if self.cfg.hard_training != "reinforce" or not self.training:
            return rewards.new_zeros(())
        rewards = rewards.detach()
        tokens = mask.sum().clamp_min(1)
        mean_reward = (rewards * mask).sum() / tokens
        advantage = (rewards - self.baseline) * mask
        policy = -(advantage * log_probs).sum() / tokens
        bonus = (entropies * mask).sum() / tokens
        with torch.no_grad():
            decay = self.cfg.baseline_decay
            self.baseline.mul_(decay).add_((1 - decay) * mean_reward)
        return self.cfg.reinforce_weight * policy - self.cfg.entropy_weight * bonus


def _one_hot(index: torch.Tensor, like: torch.Tensor) -> torch.Tensor:
    return F.one_hot(index, like.size(-1)).to(like.dtype)
