"""Search, written once: one loop (`core`) over any engine's step, the rules every search keeps
(`rules`), and how each search selects (`beam`, `pick`, `constrained`). NumPy only, so the PyTorch
engine and the ONNX Runtime one share it."""

from translate.inference.search.core import REGIONS, Context, named_regions
from translate.inference.search.rules import Hypothesis, RepeatBan, length_penalty, max_lengths
from translate.inference.search.searches import beam_search, constrained_search, decode_search, greedy, token_by_token

__all__ = ["REGIONS", "Context", "Hypothesis", "RepeatBan", "beam_search", "constrained_search", "decode_search", "greedy",
           "length_penalty", "max_lengths", "named_regions", "token_by_token"]
