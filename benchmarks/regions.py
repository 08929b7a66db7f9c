"""Profiler ranges around a model's parts, by forward hooks (the model code stays as it is)."""

from __future__ import annotations

from typing import Any

import torch


class PhaseHooks:
    """Label module calls with torch.profiler ranges, without touching the model code."""

    def __init__(self, modules: dict[str, torch.nn.Module]) -> None:
        self.stack: list[Any] = []
        self.handles = []
        for name, module in modules.items():
            self.handles.append(module.register_forward_pre_hook(lambda m, a, n=name: self._enter(n)))
            self.handles.append(module.register_forward_hook(lambda m, a, o: self._exit()))

    def _enter(self, name: str) -> None:
        self.stack.append(torch.profiler.record_function(name).__enter__())

    def _exit(self) -> None:
        self.stack.pop().__exit__(None, None, None)

    def remove(self) -> None:
        for handle in self.handles:
            handle.remove()
