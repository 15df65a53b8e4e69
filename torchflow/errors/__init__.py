"""``tf.errors``: TensorFlow error classes and error codes."""

from torchflow._src.core.errors import ABORTED as ABORTED
from torchflow._src.core.errors import ALREADY_EXISTS as ALREADY_EXISTS
from torchflow._src.core.errors import CANCELLED as CANCELLED
from torchflow._src.core.errors import DATA_LOSS as DATA_LOSS
from torchflow._src.core.errors import DEADLINE_EXCEEDED as DEADLINE_EXCEEDED
from torchflow._src.core.errors import FAILED_PRECONDITION as FAILED_PRECONDITION
from torchflow._src.core.errors import INTERNAL as INTERNAL
from torchflow._src.core.errors import INVALID_ARGUMENT as INVALID_ARGUMENT
from torchflow._src.core.errors import NOT_FOUND as NOT_FOUND
from torchflow._src.core.errors import OK as OK
from torchflow._src.core.errors import OUT_OF_RANGE as OUT_OF_RANGE
from torchflow._src.core.errors import PERMISSION_DENIED as PERMISSION_DENIED
from torchflow._src.core.errors import RESOURCE_EXHAUSTED as RESOURCE_EXHAUSTED
from torchflow._src.core.errors import UNAUTHENTICATED as UNAUTHENTICATED
from torchflow._src.core.errors import UNAVAILABLE as UNAVAILABLE
from torchflow._src.core.errors import UNIMPLEMENTED as UNIMPLEMENTED
from torchflow._src.core.errors import UNKNOWN as UNKNOWN
from torchflow._src.core.errors import AbortedError as AbortedError
from torchflow._src.core.errors import AlreadyExistsError as AlreadyExistsError
from torchflow._src.core.errors import CancelledError as CancelledError
from torchflow._src.core.errors import DataLossError as DataLossError
from torchflow._src.core.errors import DeadlineExceededError as DeadlineExceededError
from torchflow._src.core.errors import FailedPreconditionError as FailedPreconditionError
from torchflow._src.core.errors import InternalError as InternalError
from torchflow._src.core.errors import InvalidArgumentError as InvalidArgumentError
from torchflow._src.core.errors import NotFoundError as NotFoundError
from torchflow._src.core.errors import (
    OperatorNotAllowedInGraphError as OperatorNotAllowedInGraphError,
)
from torchflow._src.core.errors import OpError as OpError
from torchflow._src.core.errors import OutOfRangeError as OutOfRangeError
from torchflow._src.core.errors import PermissionDeniedError as PermissionDeniedError
from torchflow._src.core.errors import ResourceExhaustedError as ResourceExhaustedError
from torchflow._src.core.errors import UnauthenticatedError as UnauthenticatedError
from torchflow._src.core.errors import UnavailableError as UnavailableError
from torchflow._src.core.errors import UnimplementedError as UnimplementedError
from torchflow._src.core.errors import UnknownError as UnknownError
from torchflow._src.core.errors import (
    error_code_from_exception_type as error_code_from_exception_type,
)
from torchflow._src.core.errors import (
    exception_type_from_error_code as exception_type_from_error_code,
)
