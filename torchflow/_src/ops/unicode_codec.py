"""Decoding bytes to code points as TF's Unicode ops do (shared by ``tf.strings``).

``errors="replace"`` puts one replacement character for each ill-formed
subsequence (its maximal subpart, as the ICU converters behind TF's kernels),
``"ignore"`` drops it and ``"strict"`` raises TF's InvalidArgumentError.
"""

from __future__ import annotations

import codecs

from torchflow._src.core.errors import invalid_argument

_ERRORS = ("strict", "replace", "ignore")


def encoding(name: str) -> str:
    """The Python codec name of a TF encoding name (UTF-8, UTF-16-BE, UTF-32-BE)."""
    e = name.lower().replace("_", "-")
    if e not in ("utf-8", "utf-16-be", "utf-32-be"):
        raise ValueError(f"Unsupported encoding {name!r}; expected UTF-8, UTF-16-BE or UTF-32-BE")
    return e


def check_errors(errors: str) -> None:
    if errors not in _ERRORS:
        raise ValueError(f"errors must be one of {list(_ERRORS)}. Received: errors={errors!r}")


def _mark_invalid(e: UnicodeError):
    """Decoding error handler: one lone surrogate per ill-formed subsequence (the
    maximal subpart, as TF's ICU-based decoder), its value holding the byte count."""
    if not isinstance(e, UnicodeDecodeError):
        raise e
    return chr(0xDC00 + (e.end - e.start)), e.end


codecs.register_error("torchflow.unicode_decode", _mark_invalid)


def decode(op, x: bytes, enc, errors, repl, rcc):
    """[(code point, byte offset, byte length)] of ``x``.

    A well-formed decode never yields a surrogate code point (they are errors in
    UTF-8, UTF-16 and UTF-32), so each one in the text is a mark from
    ``_mark_invalid``: replaced by ``repl`` (errors="replace") or dropped ("ignore").
    """
    try:
        text = x.decode(enc, "strict" if errors == "strict" else "torchflow.unicode_decode")
    except UnicodeDecodeError:
        raise invalid_argument(op, "Invalid formatting on input string") from None
    out, pos = [], 0
    for ch in text:
        c = ord(ch)
        if 0xD800 <= c <= 0xDFFF:  # an ill-formed subsequence of c - 0xDC00 bytes
            n = c - 0xDC00
            if errors != "ignore":
                out.append((repl, pos, n))
        else:
            n = len(ch.encode(enc))
            out.append((repl if rcc and c < 32 else c, pos, n))
        pos += n
    return out
