"""``tf.audio``: decoding and encoding 16-bit PCM WAV files."""

from torchflow._src.ops.audio_ops import decode_wav as decode_wav
from torchflow._src.ops.audio_ops import encode_wav as encode_wav
