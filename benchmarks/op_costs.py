"""What the small operations around the matrix products cost here (figures in docs/results/speed.md).

    python scripts/profiler.py ops --json benchmarks/results/op-costs.json

Three questions, each answered by timing on the model's own shapes (2 threads, run it on an idle
machine):

1. Decoding: what do selecting the next tokens and normalising cost next to the output layer?
   Beam 5 over 256 sentences gives (1280, 4000) logits per step; greedy (256, 4000). Times the
   output-layer product, `log_softmax`, `logsumexp`, `amax`, `max` (values + indices), `argmax`,
   `topk(10)`, and two exact chunked variants (maxima of 100-wide chunks first).
2. Training: would computing the per-step weight gradients of the decoder loop once per batch
   (one product over all steps instead of one per step, plus no per-step accumulation into .grad)
   pay? A prototype of the input-feeding decoder loop (GRU cell, additive attention, combine layer;
   B = 90, T = S = 12, as a default batch) timed forward + backward, plain autograd against
   deferred weight gradients (custom autograd functions; the gradients are checked to agree).
3. Training: the attention context Σ αᵢ vᵢ is a batched (1 × S) @ (S × 512) product per step;
   its backward is an outer product per sentence. Times bmm, multiply-and-sum, and einsum.
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import torch
from torch import nn


def mean_us(fn: Callable[[], Any], repeats: int = 100) -> float:
    for _ in range(5):
        fn()
    start = time.perf_counter()
    for _ in range(repeats):
        fn()
    return (time.perf_counter() - start) / repeats * 1e6


def chunk_argmax(x: torch.Tensor, width: int = 100) -> torch.Tensor:
    """Argmax per row via the maxima of `width`-wide chunks (first occurrence, as torch's)."""
    rows, vocab = x.shape
    chunks = x.view(rows, vocab // width, width)
    best_chunk = chunks.amax(-1).argmax(-1)
    return best_chunk * width + chunks[torch.arange(rows), best_chunk].argmax(-1)


def chunk_topk(x: torch.Tensor, k: int, width: int = 100) -> tuple[torch.Tensor, torch.Tensor]:
    """Top k per row from the k chunks with the largest maxima (they hold every top-k element)."""
    rows, vocab = x.shape
    chunks = x.view(rows, vocab // width, width)
    best_chunks = chunks.amax(-1).topk(k, -1).indices
    candidates = chunks.gather(1, best_chunks.unsqueeze(-1).expand(-1, -1, width)).view(rows, k * width)
    values, pos = candidates.topk(k, -1)
    return values, best_chunks.gather(1, pos // width) * width + pos % width


def selection_costs(rows: int, vocab: int = 4000, hidden: int = 256) -> dict[str, float]:
    states, weight = torch.randn(rows, hidden), torch.randn(vocab, hidden) / hidden ** 0.5
    x = states @ weight.t() * 3
    assert torch.equal(chunk_argmax(x), x.argmax(-1)) and torch.equal(chunk_topk(x, 10)[1], x.topk(10, -1)[1])
    ops: dict[str, Callable[[], Any]] = {
        "output layer (rows x 256 x 4000)": lambda: states @ weight.t(), "log_softmax": lambda: torch.log_softmax(x, -1),
        "logsumexp": lambda: torch.logsumexp(x, -1), "amax": lambda: x.amax(-1), "max (values, indices)": lambda: x.max(-1),
        "argmax": lambda: x.argmax(-1), "topk 10": lambda: x.topk(10, -1), "chunked argmax (exact)": lambda: chunk_argmax(x),
        "chunked topk 10 (exact)": lambda: chunk_topk(x, 10)}
    return {name: round(mean_us(fn), 1) for name, fn in ops.items()}


class _Sink:
    def __init__(self) -> None:
        self.items: list[tuple[torch.Tensor, torch.Tensor]] = []


class _Collect(torch.autograd.Function):
    """Returns a scalar token every step uses; its backward runs after all steps' and computes the
    weight (and bias) gradient from every step's input and output gradient in one product."""

    @staticmethod
    def forward(ctx: Any, weight: torch.Tensor, bias: torch.Tensor | None, sink: _Sink) -> torch.Tensor:
        ctx.sink, ctx.has_bias = sink, bias is not None
        return weight.new_zeros(())

    @staticmethod
    def backward(ctx: Any, _: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor | None, None]:
        inputs, grads = (torch.cat(t) for t in zip(*ctx.sink.items))
        ctx.sink.items.clear()
        return grads.t().mm(inputs), grads.sum(0) if ctx.has_bias else None, None


class _StepLinear(torch.autograd.Function):
    @staticmethod
    def forward(ctx: Any, x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor | None, token: torch.Tensor,
                sink: _Sink) -> torch.Tensor:
        ctx.save_for_backward(x, weight)
        ctx.sink = sink
        return x.mm(weight.t()) if bias is None else torch.addmm(bias, x, weight.t())

    @staticmethod
    def backward(ctx: Any, grad: torch.Tensor) -> tuple[torch.Tensor, None, None, torch.Tensor, None]:
        x, weight = ctx.saved_tensors
        ctx.sink.items.append((x, grad))
        return grad.mm(weight), None, None, grad.new_zeros(()), None


def _deferred(weight: torch.Tensor, bias: torch.Tensor | None = None) -> Callable[[torch.Tensor], torch.Tensor]:
    sink = _Sink()
    token = _Collect.apply(weight, bias, sink)  # type: ignore[no-untyped-call]
    return lambda x: _StepLinear.apply(x, weight.detach(), None if bias is None else bias.detach(), token, sink)  # type: ignore[no-untyped-call]


def decoder_loop_costs(batch: int = 90, steps: int = 12, source: int = 12, size: int = 256) -> dict[str, float]:
    torch.manual_seed(0)
    cell, combine = nn.GRUCell(2 * size, size), nn.Linear(3 * size, size, bias=False)
    query, keys_proj = nn.Linear(size, size, bias=False), nn.Linear(2 * size, size, bias=False)
    v = nn.Parameter(torch.randn(size) / 16)
    embedded = torch.randn(batch, steps, size, requires_grad=True)
    memory = torch.randn(batch, source, 2 * size, requires_grad=True)
    leaves = [*cell.parameters(), combine.weight, query.weight, keys_proj.weight, v, embedded, memory]

    def attend(q: torch.Tensor, keys: torch.Tensor) -> torch.Tensor:
        alpha = (torch.tanh(keys + q.unsqueeze(1)) @ v.unsqueeze(-1)).squeeze(-1).softmax(-1)
        return (alpha.unsqueeze(1) @ memory).squeeze(1)

    def loop(deferred: bool) -> torch.Tensor:
        keys, h, feed, outs = keys_proj(memory), torch.zeros(batch, size), torch.zeros(batch, size), []
        hh, ih = (_deferred(cell.weight_hh, cell.bias_hh), _deferred(cell.weight_ih, cell.bias_ih)) if deferred else (None, None)
        q_fn, c_fn = (_deferred(query.weight), _deferred(combine.weight)) if deferred else (query, combine)
        for e in embedded.unbind(1):
            x = torch.cat([e, feed], 1)
            h = torch.gru_cell(x, h, cell.weight_ih, cell.weight_hh, cell.bias_ih, cell.bias_hh) if ih is None or hh is None \
                else _gru_gates(ih(x), hh(h), h)
            feed = torch.tanh(c_fn(torch.cat([attend(q_fn(h), keys), h], 1)))
            outs.append(feed)
        return torch.stack(outs, 1)

    def grads(deferred: bool) -> list[torch.Tensor]:
        for leaf in leaves:
            leaf.grad = None
        out = loop(deferred)
        (out * torch.linspace(-1, 1, out.numel()).view_as(out)).sum().backward()
        return [leaf.grad.clone() for leaf in leaves if leaf.grad is not None]

    difference = max(float((a - b).abs().max()) for a, b in zip(grads(False), grads(True)))
    return {"plain autograd (ms)": round(mean_us(lambda: grads(False), 20) / 1e3, 2),
            "deferred weight gradients (ms)": round(mean_us(lambda: grads(True), 20) / 1e3, 2),
            "largest gradient difference": difference}


def _gru_gates(gi: torch.Tensor, gh: torch.Tensor, h: torch.Tensor) -> torch.Tensor:
    """nn.GRUCell's update from the two input products (PyTorch's gate order r, z, n)."""
    i_r, i_z, i_n = gi.chunk(3, 1)
    h_r, h_z, h_n = gh.chunk(3, 1)
    r, z = torch.sigmoid(i_r + h_r), torch.sigmoid(i_z + h_z)
    n = torch.tanh(i_n + r * h_n)
    return n + z * (h - n)


def context_costs(batch: int = 90, source: int = 12, size: int = 512) -> dict[str, float]:
    alpha = torch.randn(batch, source).softmax(-1).requires_grad_()
    values, grad = torch.randn(batch, source, size, requires_grad=True), torch.randn(batch, size)
    forms: dict[str, Callable[[], torch.Tensor]] = {
        "bmm": lambda: (alpha.unsqueeze(1) @ values).squeeze(1), "multiply and sum": lambda: (alpha.unsqueeze(-1) * values).sum(1),
        "einsum": lambda: torch.einsum("bs,bsd->bd", alpha, values)}
    out: dict[str, float] = {}
    for name, form in forms.items():
        out[f"{name}: forward (us)"] = round(mean_us(lambda f=form: f().detach(), 500), 1)  # type: ignore[misc]
        out[f"{name}: forward + backward (us)"] = round(mean_us(lambda f=form: f().backward(grad), 500), 1)  # type: ignore[misc]
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    torch.set_num_threads(args.threads)
    report: dict[str, Any] = {"threads": args.threads, "torch": torch.__version__,
                              "beam 5, 256 sentences: (1280, 4000) logits, us": selection_costs(1280),
                              "greedy, 256 sentences: (256, 4000) logits, us": selection_costs(256),
                              "decoder loop forward + backward (B 90, T 12, S 12)": decoder_loop_costs(),
                              "attention context (B 90, S 12, 512)": context_costs()}
    print(json.dumps(report, indent=1))
    if args.json:
        args.json.write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
