"""The networks the training scripts fit, in torch, and their export to the arrays
`bots._learned.Mlp` runs."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np


def mlp(torch: Any, inputs: int, hidden: int, outputs: int) -> Any:
    """Two hidden layers of ReLUs: the shape `bots._learned.Mlp` runs."""
    nn = torch.nn
    return nn.Sequential(
        nn.Linear(inputs, hidden),
        nn.ReLU(),
        nn.Linear(hidden, hidden),
        nn.ReLU(),
        nn.Linear(hidden, outputs),
    )


def export(torch: Any, model: Any, mean: Any, std: Any) -> dict[str, Any]:
    """`model`'s arrays as `bots._learned.load_nets` reads them (without the player prefix)."""
    arrays: dict[str, Any] = {"mean": mean.astype(np.float32), "std": std.astype(np.float32)}
    linears = [m for m in model if isinstance(m, torch.nn.Linear)]
    for k, layer in enumerate(linears):
        arrays[f"w{k}"] = layer.weight.detach().numpy().T.astype(np.float32).copy()
        arrays[f"b{k}"] = layer.bias.detach().numpy().astype(np.float32).copy()
    return arrays


def train_epoch(
    model: Any, optimizer: Any, order: Any, size: int, loss: Callable[[Any], Any]
) -> None:
    """One pass of `optimizer` over the examples `order` (indexes, in the order to take them),
    `size` a step, each step minimising `loss(batch)`; `model` is left in eval mode for the
    caller's validation."""
    model.train()
    for i in range(0, len(order), size):
        optimizer.zero_grad()
        loss(order[i : i + size]).backward()
        optimizer.step()
    model.eval()
