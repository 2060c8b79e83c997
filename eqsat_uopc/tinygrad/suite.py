"""The workload suite of the mode: real models and ops, on data, whose outputs can be compared.

Each workload builds its inputs from a seeded numpy generator (so a run with the mode and one
without compute on the very same data), realizes its outputs on the current device and returns
them as numpy arrays. Shapes are small and odd (primes, non-powers of two: where index arithmetic
is hardest) so the whole suite runs on tinygrad's PYTHON device, which interprets every kernel op
by op, in seconds. `indexing` marks the workloads whose kernels index non-trivially (convolution,
pooling, padding, permutes, gathers, and the ResNet block's convolutions).

    >>> sorted(SUITE)[:3]
    ['arange_eye_tril', 'avg_pool_padding', 'causal_attention']
    >>> len(SUITE), sum(w.indexing for w in SUITE.values())
    (25, 15)
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = ["SUITE", "Workload"]


@dataclass(frozen=True)
class Workload:
    """One workload: its name, what it builds (inputs from the generator, outputs to realize) and
    whether its kernels index non-trivially."""

    name: str
    build: Callable[[np.random.Generator], list[Any]]
    indexing: bool

    def run(self, seed: int = 0) -> list[np.ndarray]:
        """The outputs on the current device (tinygrad's DEV), computed from inputs of `seed`."""
        return [t.numpy() for t in self.build(np.random.default_rng(seed))]


def _t(rng: np.random.Generator, *shape: int) -> Any:
    from tinygrad import Tensor

    return Tensor(rng.standard_normal(shape, dtype=np.float32))


def _ints(rng: np.random.Generator, high: int, *shape: int, low: int = 0) -> Any:
    from tinygrad import Tensor

    return Tensor(rng.integers(low, high, shape, dtype=np.int32))


def _conv_stride_padding(rng):
    return [_t(rng, 1, 2, 9, 11).conv2d(_t(rng, 3, 2, 3, 3), stride=2, padding=1)]


def _conv_dilation(rng):
    return [_t(rng, 1, 2, 13, 11).conv2d(_t(rng, 3, 2, 3, 3), dilation=2, padding=2)]


def _conv_groups(rng):
    return [_t(rng, 1, 4, 9, 10).conv2d(_t(rng, 4, 2, 3, 3), groups=2, padding=1)]


def _conv_asymmetric(rng):
    return [_t(rng, 1, 2, 9, 11).conv2d(_t(rng, 3, 2, 5, 3), stride=(1, 3), padding=(2, 1))]


def _conv1d(rng):
    return [_t(rng, 2, 3, 23).conv2d(_t(rng, 4, 3, 4), stride=3, padding=2)]


def _conv_transpose(rng):
    return [_t(rng, 1, 3, 5, 6).conv_transpose2d(_t(rng, 3, 2, 3, 3), stride=2, padding=1)]


def _max_pool_odd(rng):
    return [_t(rng, 1, 2, 15, 17).max_pool2d(kernel_size=(3, 3), stride=2)]


def _avg_pool_padding(rng):
    return [_t(rng, 1, 2, 9, 10).avg_pool2d(kernel_size=(2, 3), stride=(2, 1), padding=1)]


def _max_pool_dilation(rng):
    return [_t(rng, 1, 2, 13, 11).max_pool2d(kernel_size=(2, 2), stride=2, dilation=2)]


def _pad_flip(rng):
    return [_t(rng, 2, 3, 9, 10).pad(((0, 0), (0, 0), (1, 2), (2, 1))).flip(2).contiguous()]


def _shrink_permute(rng):
    x = _t(rng, 5, 7, 9)
    return [x.shrink(((1, 4), (2, 7), (0, 9))).reshape(3, 5, 3, 3).permute(3, 1, 0, 2).contiguous()]


def _reshape_permute_chain(rng):
    x = _t(rng, 6, 10)
    y = _t(rng, 5, 7, 9)
    return [
        x.reshape(2, 3, 2, 5).permute(0, 2, 1, 3).reshape(4, 15).contiguous(),
        y.flip(1).permute(1, 2, 0).reshape(7, 45).shrink(((1, 6), (3, 40))).contiguous(),
    ]


def _repeat_roll_cat(rng):
    from tinygrad import Tensor

    return [
        _t(rng, 4, 6).repeat(2, 3).contiguous(),
        _t(rng, 5, 7).roll(2, 1).contiguous(),
        Tensor.cat(_t(rng, 3, 5), _t(rng, 4, 5), _t(rng, 2, 5)).contiguous(),
    ]


def _gather(rng):
    return [_t(rng, 7, 9).gather(1, _ints(rng, 9, 7, 4))]


def _embedding(rng):
    table = _t(rng, 11, 6)
    return [table[_ints(rng, 11, 5)], table[_ints(rng, 11, 2, 3)].sum(axis=1)]


def _one_hot(rng):
    return [_ints(rng, 10, 13).one_hot(10)]


def _arange_eye_tril(rng):
    from tinygrad import Tensor

    x = _t(rng, 6, 8)
    return [
        (Tensor.arange(3, 50, 7).float() + x[0, :7]).contiguous(),
        (Tensor.eye(7) * _t(rng, 7, 7)).contiguous(),
        x.tril().contiguous(),
    ]


def _cumsum(rng):
    return [_t(rng, 3, 19).cumsum(axis=1), _t(rng, 4, 9).cumsum(axis=0)]


def _matmul_odd(rng):
    return [_t(rng, 7, 13) @ _t(rng, 13, 5), _t(rng, 3, 5, 7) @ _t(rng, 3, 7, 9)]


def _reductions(rng):
    x = _t(rng, 7, 11, 13)
    return [x.sum(axis=1), x.max(axis=(0, 2)), x.argmax(axis=1), _t(rng, 9, 10).std(axis=0)]


def _interpolate_linear(rng):
    return [_t(rng, 1, 2, 7, 9).interpolate(size=(13, 5), mode="linear")]


def _interpolate_nearest(rng):
    return [_t(rng, 1, 3, 5, 6).interpolate(size=(10, 12), mode="nearest")]


def _attention(q: Any, k: Any, v: Any) -> Any:
    return q.scaled_dot_product_attention(k, v, is_causal=True)


def _causal_attention(rng):
    b, heads, t, d = 1, 2, 7, 4
    return [_attention(_t(rng, b, heads, t, d), _t(rng, b, heads, t, d), _t(rng, b, heads, t, d))]


def _resnet_block(rng):
    x = _t(rng, 1, 3, 6, 6)

    def bn(h: Any, c: int) -> Any:
        mean, invstd = _t(rng, c), _t(rng, c).abs() + 0.5
        return h.batchnorm(_t(rng, c), _t(rng, c), mean, invstd)

    h = bn(x.conv2d(_t(rng, 3, 3, 3, 3), padding=1), 3).relu()
    h = bn(h.conv2d(_t(rng, 3, 3, 3, 3), padding=1), 3)
    down = x.conv2d(_t(rng, 5, 3, 1, 1), stride=2)
    return [(h + x).relu(), down]


def _transformer_block(rng):
    b, t, d, heads = 1, 5, 8, 2
    x = _t(rng, b, t, d)
    qkv = x.layernorm() @ _t(rng, d, 3 * d)
    q, k, v = [y.reshape(b, t, heads, d // heads).transpose(1, 2) for y in qkv.chunk(3, dim=2)]
    att = _attention(q, k, v).transpose(1, 2).reshape(b, t, d)
    x = x + att @ _t(rng, d, d)
    return [x + (x.layernorm() @ _t(rng, d, 2 * d)).gelu() @ _t(rng, 2 * d, d)]


_WORKLOADS = (
    ("conv2d_stride_padding", _conv_stride_padding, True),
    ("conv2d_dilation", _conv_dilation, True),
    ("conv2d_groups", _conv_groups, True),
    ("conv2d_asymmetric", _conv_asymmetric, True),
    ("conv1d", _conv1d, True),
    ("conv_transpose2d", _conv_transpose, True),
    ("max_pool_odd", _max_pool_odd, True),
    ("avg_pool_padding", _avg_pool_padding, True),
    ("max_pool_dilation", _max_pool_dilation, True),
    ("pad_flip", _pad_flip, True),
    ("shrink_permute", _shrink_permute, True),
    ("reshape_permute_chain", _reshape_permute_chain, True),
    ("repeat_roll_cat", _repeat_roll_cat, False),
    ("gather", _gather, True),
    ("embedding", _embedding, True),
    ("one_hot", _one_hot, False),
    ("arange_eye_tril", _arange_eye_tril, False),
    ("cumsum", _cumsum, False),
    ("matmul_odd", _matmul_odd, False),
    ("reductions", _reductions, False),
    ("interpolate_linear", _interpolate_linear, False),
    ("interpolate_nearest", _interpolate_nearest, False),
    ("causal_attention", _causal_attention, False),
    ("resnet_block", _resnet_block, True),
    ("transformer_block", _transformer_block, False),
)
SUITE: dict[str, Workload] = {name: Workload(name, build, indexing) for name, build, indexing in _WORKLOADS}
