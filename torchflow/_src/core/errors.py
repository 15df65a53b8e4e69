"""TensorFlow's error hierarchy (``tf.errors``) and torch-exception translation."""

from __future__ import annotations

from torchflow._src.util.api import public

OK = 0
CANCELLED = 1
UNKNOWN = 2
INVALID_ARGUMENT = 3
DEADLINE_EXCEEDED = 4
NOT_FOUND = 5
ALREADY_EXISTS = 6
PERMISSION_DENIED = 7
RESOURCE_EXHAUSTED = 8
FAILED_PRECONDITION = 9
ABORTED = 10
OUT_OF_RANGE = 11
UNIMPLEMENTED = 12
INTERNAL = 13
UNAVAILABLE = 14
DATA_LOSS = 15
UNAUTHENTICATED = 16


@public("torchflow.errors")
class OpError(Exception):
    """The base class for errors raised when a TensorFlow op fails.

    Args:
      node_def: Unused; kept for TF's signature.
      op: The op that failed (or None).
      message: The message.
      error_code: One of the ``tf.errors`` codes.
    """

    def __init__(self, node_def, op, message, error_code=UNKNOWN, *args):
        super().__init__(message)
        self._node_def = node_def
        self._op = op
        self._message = message
        self._error_code = error_code

    @property
    def message(self) -> str:
        return self._message

    @property
    def op(self):
        return self._op

    @property
    def node_def(self):
        return self._node_def

    @property
    def error_code(self) -> int:
        return self._error_code

    def __reduce__(self):
        return (type(self), (self._node_def, self._op, self._message))

    def __str__(self) -> str:
        return self._message


def _make(name: str, code: int, doc: str):
    def __init__(self, node_def=None, op=None, message="", *args):
        OpError.__init__(self, node_def, op, message, code)

    cls = type(name, (OpError,), {"__init__": __init__, "__doc__": doc})
    return public("torchflow.errors")(cls)


CancelledError = _make("CancelledError", CANCELLED,
    """Raised when an operation or step is cancelled (e.g. a queue closed while an op waited on it).

    Args:
      node_def: Unused; kept for TF's signature (default None).
      op: The op that failed, or None (default).
      message: str: the error message.
    """)
UnknownError = _make("UnknownError", UNKNOWN,
    """Unknown error: an error from elsewhere (e.g. a Python exception inside ``tf.py_function``)
    without a better code.

    Args:
      node_def: Unused; kept for TF's signature (default None).
      op: The op that failed, or None (default).
      message: str: the error message.
    """)
InvalidArgumentError = _make("InvalidArgumentError", INVALID_ARGUMENT,
    """Raised when an op receives an invalid argument: a bad shape, value or dtype (e.g.
    ``tf.reshape`` to a size that does not fit).

    Args:
      node_def: Unused; kept for TF's signature (default None).
      op: The op that failed, or None (default).
      message: str: the error message.
    """)
DeadlineExceededError = _make("DeadlineExceededError", DEADLINE_EXCEEDED,
    """Raised when a deadline expires before an operation completes (e.g. an RPC timeout).

    Args:
      node_def: Unused; kept for TF's signature (default None).
      op: The op that failed, or None (default).
      message: str: the error message.
    """)
NotFoundError = _make("NotFoundError", NOT_FOUND,
    """Raised when a requested entity, such as a file or checkpoint, is not found.

    Args:
      node_def: Unused; kept for TF's signature (default None).
      op: The op that failed, or None (default).
      message: str: the error message.
    """)
AlreadyExistsError = _make("AlreadyExistsError", ALREADY_EXISTS,
    """Raised when an entity that an op tries to create already exists.

    Args:
      node_def: Unused; kept for TF's signature (default None).
      op: The op that failed, or None (default).
      message: str: the error message.
    """)
PermissionDeniedError = _make("PermissionDeniedError", PERMISSION_DENIED,
    """Raised when the caller lacks permission, e.g. to read or write a file.

    Args:
      node_def: Unused; kept for TF's signature (default None).
      op: The op that failed, or None (default).
      message: str: the error message.
    """)
ResourceExhaustedError = _make("ResourceExhaustedError", RESOURCE_EXHAUSTED,
    """Raised when a resource, such as memory or a quota, has been exhausted (e.g. out of GPU
    memory).

    Args:
      node_def: Unused; kept for TF's signature (default None).
      op: The op that failed, or None (default).
      message: str: the error message.
    """)
FailedPreconditionError = _make("FailedPreconditionError", FAILED_PRECONDITION,
    """Raised when the system is not in a state to run the op (e.g. reading a variable that was
    never initialised).

    Args:
      node_def: Unused; kept for TF's signature (default None).
      op: The op that failed, or None (default).
      message: str: the error message.
    """)
AbortedError = _make("AbortedError", ABORTED,
    """Raised when an operation is aborted, typically because of concurrent access.

    Args:
      node_def: Unused; kept for TF's signature (default None).
      op: The op that failed, or None (default).
      message: str: the error message.
    """)
OutOfRangeError = _make("OutOfRangeError", OUT_OF_RANGE,
    """Raised when an op iterates past the valid input range (e.g. ``get_next`` on an exhausted
    ``tf.data`` iterator).

    Args:
      node_def: Unused; kept for TF's signature (default None).
      op: The op that failed, or None (default).
      message: str: the error message.
    """)
UnimplementedError = _make("UnimplementedError", UNIMPLEMENTED,
    """Raised when an op is not implemented or supported for its inputs (e.g. an unsupported dtype).

    Args:
      node_def: Unused; kept for TF's signature (default None).
      op: The op that failed, or None (default).
      message: str: the error message.
    """)
InternalError = _make("InternalError", INTERNAL,
    """Raised when the runtime breaks an internal invariant.

    Args:
      node_def: Unused; kept for TF's signature (default None).
      op: The op that failed, or None (default).
      message: str: the error message.
    """)
UnavailableError = _make("UnavailableError", UNAVAILABLE,
    """Raised when the runtime or a remote service is unavailable (e.g. a worker that cannot be
    reached).

    Args:
      node_def: Unused; kept for TF's signature (default None).
      op: The op that failed, or None (default).
      message: str: the error message.
    """)
DataLossError = _make("DataLossError", DATA_LOSS,
    """Raised on unrecoverable data loss or corruption (e.g. a truncated or corrupt record file).

    Args:
      node_def: Unused; kept for TF's signature (default None).
      op: The op that failed, or None (default).
      message: str: the error message.
    """)
UnauthenticatedError = _make("UnauthenticatedError", UNAUTHENTICATED,
    """Raised when the request lacks valid authentication credentials.

    Args:
      node_def: Unused; kept for TF's signature (default None).
      op: The op that failed, or None (default).
      message: str: the error message.
    """)

@public("torchflow.errors")
class OperatorNotAllowedInGraphError(TypeError):
    """Raised when an operation that needs eager execution (iterating or taking
    the truth value of a symbolic tensor) is used while tracing."""


_BY_CODE = {
    c: cls
    for c, cls in [
        (CANCELLED, CancelledError),
        (UNKNOWN, UnknownError),
        (INVALID_ARGUMENT, InvalidArgumentError),
        (DEADLINE_EXCEEDED, DeadlineExceededError),
        (NOT_FOUND, NotFoundError),
        (ALREADY_EXISTS, AlreadyExistsError),
        (PERMISSION_DENIED, PermissionDeniedError),
        (RESOURCE_EXHAUSTED, ResourceExhaustedError),
        (FAILED_PRECONDITION, FailedPreconditionError),
        (ABORTED, AbortedError),
        (OUT_OF_RANGE, OutOfRangeError),
        (UNIMPLEMENTED, UnimplementedError),
        (INTERNAL, InternalError),
        (UNAVAILABLE, UnavailableError),
        (DATA_LOSS, DataLossError),
        (UNAUTHENTICATED, UnauthenticatedError),
    ]
}


@public("torchflow.errors")
def exception_type_from_error_code(error_code: int):
    """Returns the ``OpError`` subclass for ``error_code``."""
    return _BY_CODE[error_code]


@public("torchflow.errors")
def error_code_from_exception_type(cls) -> int:
    """Returns the error code of an ``OpError`` subclass."""
    for code, c in _BY_CODE.items():
        if c is cls:
            return code
    raise KeyError(cls)


def invalid_argument(op_name: str, message: str) -> InvalidArgumentError:
    """An ``InvalidArgumentError`` whose message ends in TF's ``[Op:Name]`` tag."""
    return InvalidArgumentError(None, None, f"{message} [Op:{op_name}]")


def translate(op_name: str, exc: BaseException) -> Exception:
    """Turns an exception raised by a torch kernel into the TF error a user expects.

    Errors that are already TF errors, ``TypeError`` or ``ValueError`` raised by
    torchflow itself pass through. Torch's ``RuntimeError``/``IndexError`` become
    ``InvalidArgumentError`` (``ResourceExhaustedError`` for out-of-memory) whose
    message names the op.
    """
    if isinstance(exc, OpError):
        return exc
    text = str(exc).split("\n")[0]
    if "out of memory" in text.lower():
        return ResourceExhaustedError(None, None, f"OOM when running {op_name}: {text}")
    if isinstance(exc, NotImplementedError):
        return UnimplementedError(None, None, f"{text} [Op:{op_name}]")
    return InvalidArgumentError(None, None, f"{text} [Op:{op_name}]")


def dims(shape) -> str:
    """A shape as TF's error messages print it (``TensorShape::DebugString``): ``[2,3]``."""
    return "[" + ",".join(str(int(d)) for d in shape) + "]"
