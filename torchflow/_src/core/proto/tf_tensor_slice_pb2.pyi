from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class TensorSliceProto(_message.Message):
    __slots__ = ("extent",)
    class Extent(_message.Message):
        __slots__ = ("start", "length")
        START_FIELD_NUMBER: _ClassVar[int]
        LENGTH_FIELD_NUMBER: _ClassVar[int]
        start: int
        length: int
        def __init__(self, start: _Optional[int] = ..., length: _Optional[int] = ...) -> None: ...
    EXTENT_FIELD_NUMBER: _ClassVar[int]
    extent: _containers.RepeatedCompositeFieldContainer[TensorSliceProto.Extent]
    def __init__(self, extent: _Optional[_Iterable[_Union[TensorSliceProto.Extent, _Mapping]]] = ...) -> None: ...
