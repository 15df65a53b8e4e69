from torchflow._src.core.proto import tf_function_pb2 as _tf_function_pb2
from torchflow._src.core.proto import tf_node_def_pb2 as _tf_node_def_pb2
from torchflow._src.core.proto import tf_versions_pb2 as _tf_versions_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class GraphDef(_message.Message):
    __slots__ = ("node", "versions", "version", "library")
    NODE_FIELD_NUMBER: _ClassVar[int]
    VERSIONS_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    LIBRARY_FIELD_NUMBER: _ClassVar[int]
    node: _containers.RepeatedCompositeFieldContainer[_tf_node_def_pb2.NodeDef]
    versions: _tf_versions_pb2.VersionDef
    version: int
    library: _tf_function_pb2.FunctionDefLibrary
    def __init__(self, node: _Optional[_Iterable[_Union[_tf_node_def_pb2.NodeDef, _Mapping]]] = ..., versions: _Optional[_Union[_tf_versions_pb2.VersionDef, _Mapping]] = ..., version: _Optional[int] = ..., library: _Optional[_Union[_tf_function_pb2.FunctionDefLibrary, _Mapping]] = ...) -> None: ...
