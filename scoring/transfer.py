"""Copies between the host and the scoring device that do not stall a CUDA device.

A copy from ordinary (pageable) host memory to a CUDA device waits for the work already queued
on the device, and ``tensor.cpu()`` waits for all of it: either way the host stops queueing the
next batch while the device runs this one, and the device then idles while the host prepares
and launches the next. Through pinned host memory both copies are queued like any other work;
the host waits for a batch's statistics only after it has launched the next batch. On other
devices the copies are the plain, synchronous ones.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch


def to_device(tensor: torch.Tensor, device: torch.device) -> torch.Tensor:
    """``tensor`` (on the host) on ``device``; queued behind the device's work where it is CUDA."""
    device = torch.device(device)
    if device.type != "cuda":
        return tensor.to(device)
    return tensor.pin_memory().to(device, non_blocking=True)


@dataclass(frozen=True)
class HostCopy:
    """A device tensor's copy on its way to the host; :meth:`result` waits for it."""

    host: torch.Tensor
    done: object = None  # a CUDA event recorded after the copy; None when the copy is already done

    def result(self) -> np.ndarray:
        """The copy as a numpy array, once the device has written it."""
        if self.done is not None:
            self.done.synchronize()
        return self.host.numpy()


def to_host(tensor: torch.Tensor) -> HostCopy:
    """Start copying ``tensor`` to the host; from a CUDA device without waiting for it."""
    if tensor.device.type != "cuda":
        return HostCopy(tensor.cpu())
    host = torch.empty(tensor.shape, dtype=tensor.dtype, pin_memory=True)
    host.copy_(tensor, non_blocking=True)
    done = torch.cuda.Event()
    done.record()
    return HostCopy(host, done)
