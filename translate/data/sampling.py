"""Subword regularisation: a training batch segmented anew, by sampling, each time it is drawn.

The cached token ids hold the one best segmentation; a batch's rows are decoded back to their
(normalised) text and encoded again with `Tokenizer.sample`. A row whose sample would pass the
length limit the corpus was filtered with keeps its best segmentation, so batches stay within
`data.max_tokens` as without sampling.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import sentencepiece as spm

from translate.data.tokenizer import Tokenizer, fits, source_ids, target_ids


class SubwordSampler:
    """Resegments (source, target) id rows: sources end with EOS, targets are BOS ... EOS, in and out."""

    def __init__(self, src_tokenizer: Tokenizer, tgt_tokenizer: Tokenizer, alpha: float, max_tokens: int,
                 seed: int) -> None:
        self.src_tokenizer, self.tgt_tokenizer, self.alpha, self.max_tokens = src_tokenizer, tgt_tokenizer, alpha, max_tokens
        spm.set_random_generator_seed(seed)

    def __call__(self, src: Sequence[np.ndarray], tgt: Sequence[np.ndarray]) -> tuple[list[list[int]], list[list[int]]]:
        src_text = self.src_tokenizer.decode([row.tolist() for row in src])
        tgt_text = self.tgt_tokenizer.decode([row.tolist() for row in tgt])
        out_src, out_tgt = [], []
        for old_s, old_t, s, t in zip(src, tgt, self.src_tokenizer.sample(src_text, self.alpha),
                                      self.tgt_tokenizer.sample(tgt_text, self.alpha)):
            kept = fits(s, t, self.max_tokens)
            out_src.append(source_ids(s) if kept else old_s.tolist())
            out_tgt.append(target_ids(t) if kept else old_t.tolist())
        return out_src, out_tgt
