"""Real tinygrad workloads whose kernels' index arithmetic the capture records.

Each workload builds tensors with `Tensor.empty` (no data is needed: on tinygrad's NULL device
nothing executes, but every kernel is scheduled and compiled through the full codegen pipeline)
and realizes one or more results. Shapes are deliberately odd (primes, non-powers of two), since
that is where index arithmetic is hardest to simplify.
"""

from __future__ import annotations

from collections.abc import Callable

__all__ = ["WORKLOADS"]


def _matmul() -> None:
    from tinygrad import Tensor

    (Tensor.empty(7, 13) @ Tensor.empty(13, 5)).realize()
    (Tensor.empty(33, 17) @ Tensor.empty(17, 65)).realize()
    (Tensor.empty(3, 5, 7) @ Tensor.empty(3, 7, 9)).realize()
    (Tensor.empty(1, 31) @ Tensor.empty(31, 1)).realize()


def _conv2d() -> None:
    from tinygrad import Tensor

    x = Tensor.empty(2, 3, 17, 19)
    x.conv2d(Tensor.empty(4, 3, 3, 3), stride=2, padding=1, dilation=2).realize()
    x.conv2d(Tensor.empty(6, 3, 5, 3), stride=(1, 3), padding=(2, 1)).realize()
    Tensor.empty(1, 4, 11, 13).conv2d(Tensor.empty(4, 2, 3, 3), groups=2, padding=1).realize()
    Tensor.empty(1, 3, 9, 10).conv_transpose2d(Tensor.empty(3, 2, 3, 3), stride=2, padding=1).realize()
    Tensor.empty(2, 5, 23).conv2d(Tensor.empty(7, 5, 4), stride=3, padding=2).realize()


def _pooling() -> None:
    from tinygrad import Tensor

    x = Tensor.empty(2, 3, 15, 17)
    x.max_pool2d(kernel_size=(3, 3), stride=2).realize()
    x.avg_pool2d(kernel_size=(2, 3), stride=(2, 1), padding=1).realize()
    x.max_pool2d(kernel_size=(2, 2), stride=2, dilation=2).realize()


def _movement() -> None:
    from tinygrad import Tensor

    x = Tensor.empty(5, 7, 9)
    x.pad(((1, 2), (0, 3), (2, 0))).permute(2, 0, 1).contiguous().realize()
    x.shrink(((1, 4), (2, 7), (0, 9))).reshape(3, 5, 3, 3).permute(3, 1, 0, 2).contiguous().realize()
    Tensor.empty(3, 1, 5).expand(3, 4, 5).reshape(12, 5).pad(((0, 1), (2, 2))).contiguous().realize()
    x.flip(1).permute(1, 2, 0).reshape(7, 45).shrink(((1, 6), (3, 40))).contiguous().realize()
    Tensor.empty(6, 10).reshape(2, 3, 2, 5).permute(0, 2, 1, 3).reshape(4, 15).contiguous().realize()
    Tensor.empty(4, 6).repeat(2, 3).contiguous().realize()
    Tensor.empty(5, 7).roll(2, 1).contiguous().realize()
    Tensor.cat(Tensor.empty(3, 5), Tensor.empty(4, 5), Tensor.empty(2, 5)).contiguous().realize()


def _reductions() -> None:
    from tinygrad import Tensor

    x = Tensor.empty(7, 11, 13)
    x.sum(axis=1).realize()
    x.max(axis=(0, 2)).realize()
    x.mean(axis=2).realize()
    x.argmax(axis=1).realize()
    Tensor.empty(37, 41).sum().realize()
    Tensor.empty(9, 10).std(axis=0).realize()


def _arange_onehot_gather() -> None:
    from tinygrad import Tensor

    Tensor.arange(3, 50, 7).contiguous().realize()
    Tensor.empty(13, dtype="int32").one_hot(10).realize()
    Tensor.empty(7, 9).gather(1, Tensor.empty(7, 4, dtype="int32")).realize()
    Tensor.empty(11, 6)[Tensor.empty(5, dtype="int32")].realize()
    Tensor.eye(7).contiguous().realize()
    Tensor.empty(6, 8).tril().contiguous().realize()


def _cumsum() -> None:
    from tinygrad import Tensor

    Tensor.empty(5, 37).cumsum(axis=1).realize()
    Tensor.empty(300).cumsum().realize()
    Tensor.empty(4, 9).cumsum(axis=0).realize()


def _cnn() -> None:
    from tinygrad import Tensor

    x = Tensor.empty(2, 1, 28, 28)
    h = x.conv2d(Tensor.empty(8, 1, 5, 5), Tensor.empty(8), padding=2).relu().max_pool2d(2)
    h = h.conv2d(Tensor.empty(16, 8, 3, 3), Tensor.empty(16)).relu().max_pool2d(2)
    h = h.flatten(1) @ Tensor.empty(16 * 6 * 6, 10)
    h.log_softmax().realize()


def _transformer_block() -> None:
    from tinygrad import Tensor

    b, t, d, heads = 2, 11, 24, 3
    x = Tensor.empty(b, t, d)
    h = x.layernorm()
    qkv = h @ Tensor.empty(d, 3 * d)
    q, k, v = [y.reshape(b, t, heads, d // heads).transpose(1, 2) for y in qkv.chunk(3, dim=2)]
    att = q.scaled_dot_product_attention(k, v, is_causal=True).transpose(1, 2).reshape(b, t, d)
    x = x + att @ Tensor.empty(d, d)
    (x + (x.layernorm() @ Tensor.empty(d, 4 * d)).gelu() @ Tensor.empty(4 * d, d)).realize()


def _interpolate() -> None:
    from tinygrad import Tensor

    Tensor.empty(1, 2, 7, 9).interpolate(size=(13, 5), mode="linear").realize()
    Tensor.empty(1, 3, 5, 6).interpolate(size=(10, 12), mode="nearest").realize()


WORKLOADS: dict[str, Callable[[], None]] = {
    "matmul": _matmul,
    "conv2d": _conv2d,
    "pooling": _pooling,
    "movement": _movement,
    "reductions": _reductions,
    "arange_onehot_gather": _arange_onehot_gather,
    "cumsum": _cumsum,
    "cnn": _cnn,
    "transformer_block": _transformer_block,
    "interpolate": _interpolate,
}
