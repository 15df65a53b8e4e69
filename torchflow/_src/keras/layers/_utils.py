"""Argument normalisation shared by the built-in layers (Keras' conv_utils)."""

from __future__ import annotations

from torchflow._src.keras import activations, backend, constraints, initializers, regularizers


def normalize_tuple(value, n: int, name: str) -> tuple:
    """An int or an iterable of ``n`` ints as a tuple of ``n`` ints.

    Raises:
      ValueError: If ``value`` is neither.
    """
    if isinstance(value, int):
        return (value,) * n
    try:
        out = tuple(value)
    except TypeError:
        raise ValueError(f"The `{name}` argument must be a tuple of {n} integers. "
                         f"Received: {value}") from None
    if len(out) != n or not all(isinstance(v, int) for v in out):
        raise ValueError(f"The `{name}` argument must be a tuple of {n} integers. "
                         f"Received: {value}")
    return out


def normalize_data_format(value) -> str:
    """``channels_last``/``channels_first`` (default: ``image_data_format()``).

    Raises:
      ValueError: For any other value.
    """
    if value is None:
        value = backend.image_data_format()
    v = value.lower()
    if v not in ("channels_first", "channels_last"):
        raise ValueError(f"The `data_format` argument must be one of \"channels_first\", "
                         f"\"channels_last\". Received: {value}")
    return v


def normalize_padding(value, allow_causal=False) -> str:
    """``valid``/``same`` (and ``causal`` where allowed), lower-cased.

    Raises:
      ValueError: For any other value.
    """
    if isinstance(value, (list, tuple)):
        return value
    v = value.lower()
    allowed = ("valid", "same", "causal") if allow_causal else ("valid", "same")
    if v not in allowed:
        raise ValueError(f"The `padding` argument must be a list/tuple or one of {allowed}. "
                         f"Received: {value}")
    return v


def conv_output_length(length, filter_size, padding, stride, dilation=1):
    """The output length of a convolution over ``length`` elements (None stays None)."""
    if length is None:
        return None
    eff = (filter_size - 1) * dilation + 1
    if padding in ("same", "causal"):
        out = length
    else:
        out = length - eff + 1
    return (out + stride - 1) // stride


def deconv_output_length(length, filter_size, padding, output_padding=None, stride=0,
                         dilation=1):
    """The output length of a transposed convolution (Keras' formula)."""
    if length is None:
        return None
    filter_size = filter_size + (filter_size - 1) * (dilation - 1)
    if output_padding is None:
        if padding == "valid":
            return length * stride + max(filter_size - stride, 0)
        if padding == "full":
            return length * stride - (stride + filter_size - 2)
        return length * stride
    pad = {"same": filter_size // 2, "valid": 0, "full": filter_size - 1}[padding]
    return (length - 1) * stride + filter_size - 2 * pad + output_padding


def ser_init(x):
    return initializers.serialize(x) if x is not None else None


def ser_reg(x):
    return regularizers.serialize(x) if x is not None else None


def ser_con(x):
    return constraints.serialize(x) if x is not None else None


def ser_act(x):
    return activations.serialize(x)


def get_init(x):
    return initializers.get(x)


def get_reg(x):
    return regularizers.get(x)


def get_con(x):
    return constraints.get(x)


def get_act(x):
    return activations.get(x)
