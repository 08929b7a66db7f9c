"""Data-parallel training on PyTorch's own engine: `torchrun` starts the processes and sets RANK,
WORLD_SIZE and LOCAL_RANK; this module turns them into one `Dist` value (gloo on CPU, NCCL on
CUDA) with the few collectives the trainer needs. One process without torchrun is `Dist()`:
every method is then a no-op and nothing touches torch.distributed."""

from __future__ import annotations

import os
from dataclasses import dataclass

import torch


@dataclass(frozen=True)
class Dist:
    rank: int = 0
    world: int = 1
    local_rank: int = 0
    local_world: int = 1

    @property
    def main(self) -> bool:
        """Only the main process logs, validates and writes checkpoints."""
        return self.rank == 0

    @property
    def active(self) -> bool:
        return self.world > 1

    def barrier(self) -> None:
        if self.active:
            torch.distributed.barrier()

    def all_sum(self, values: list[float]) -> list[float]:
        """Element-wise sum over processes (float64, so token counts stay exact)."""
        if not self.active:
            return values
        tensor = torch.tensor(values, dtype=torch.float64, device=self._device())
        torch.distributed.all_reduce(tensor)
        return [float(v) for v in tensor.cpu()]

    def any(self, flag: bool) -> bool:
        """True on every process when it is True on one."""
        return self.all_sum([1.0 if flag else 0.0])[0] > 0 if self.active else flag

    def shard(self, batches: list[list[int]]) -> list[list[int]]:
        """This process's batches of an epoch's global order: every `world`-th one from `rank`. The
        last `len % world` batches are dropped so that all processes take the same number of steps."""
        usable = len(batches) - len(batches) % self.world
        return batches[self.rank:usable:self.world]

    def _device(self) -> torch.device:
        backend = torch.distributed.get_backend()
        return torch.device("cuda", torch.cuda.current_device()) if backend == "nccl" else torch.device("cpu")

    def close(self) -> None:
        if self.active and torch.distributed.is_initialized():
            torch.distributed.destroy_process_group()


def from_environment(device_type: str) -> Dist:
    """The process group torchrun describes in the environment, or Dist() without torchrun."""
    world = int(os.environ.get("WORLD_SIZE", "1"))
    if world <= 1:
        return Dist()
    rank, local_rank = int(os.environ["RANK"]), int(os.environ.get("LOCAL_RANK", "0"))
    local_world = int(os.environ.get("LOCAL_WORLD_SIZE", str(world)))
    if device_type == "cuda":
        torch.cuda.set_device(local_rank)
    if not torch.distributed.is_initialized():
        torch.distributed.init_process_group("nccl" if device_type == "cuda" else "gloo")
    return Dist(rank, world, local_rank, local_world)


def threads_per_process(local_world: int) -> int:
    """The machine's cores shared out among the processes on it (at least one each)."""
    return max(1, (os.cpu_count() or 1) // max(local_world, 1))
