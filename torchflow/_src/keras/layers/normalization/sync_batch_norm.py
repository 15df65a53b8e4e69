"""``tf.keras.layers.experimental.SyncBatchNormalization``: batch statistics over all replicas.

In training, each replica sums its batch and its squares over the reduced axes, and
the sums and element counts are all-reduced through the current ``ReplicaContext``
(``MirroredStrategy``, ``MultiWorkerMirroredStrategy``); ``mean = sum / n`` and
``variance = sum_sq / n - mean ** 2`` are then the statistics of the global batch, on
every replica. The gradient of the all-reduced sums is the all-reduced upstream
gradient, so each replica's input gradient sees every replica's loss (TF's gradient of
``all_reduce``). With one replica (no strategy) the layer equals ``BatchNormalization``.
Never fused, as in TF 2.4.
"""

from __future__ import annotations

from torchflow._src.core import dtypes
from torchflow._src.core.custom_gradient import custom_gradient
from torchflow._src.distribute.ds_context import get_replica_context
from torchflow._src.distribute.reduce_util import ReduceOp
from torchflow._src.keras.layers.normalization.batch_normalization import _LOW, BatchNormalization
from torchflow._src.ops.array_ops import reshape, stack
from torchflow._src.ops.creation_ops import cast
from torchflow._src.ops.normalization_ops import moments
from torchflow._src.ops.reduction_ops import reduce_prod, reduce_sum
from torchflow._src.ops.shape_ops import shape
from torchflow._src.ops.unary_math_ops import rsqrt, square
from torchflow._src.util.api import public


def _sum_across_replicas(ctx, local_sum, local_sq):
    """``ctx.all_reduce(SUM, ...)`` of both sums, whose gradient is the all-reduced one."""

    @custom_gradient
    def reduce(a, b):
        def grad(da, db):
            return tuple(ctx.all_reduce(ReduceOp.SUM, [da, db]))
        return tuple(ctx.all_reduce(ReduceOp.SUM, [a, b])), grad

    return reduce(local_sum, local_sq)


@public("torchflow.keras.layers.experimental")
class SyncBatchNormalization(BatchNormalization):
    """Batch normalization whose training statistics cover the batch of every replica.

    TF 2.4's ``SyncBatchNormalization``: under ``MirroredStrategy`` or
    ``MultiWorkerMirroredStrategy`` the mean and variance in training are those of the
    global batch (all-reduced through ``tf.distribute.get_replica_context()``), so the
    output and moving statistics equal ``BatchNormalization`` over the global batch.

    Args:
      axis: The feature axis (or list of axes) (default -1).
      momentum: Moving-average momentum (default 0.99).
      epsilon: Added to the variance (default 1e-3).
      center, scale: Whether to add ``beta`` / multiply by ``gamma``.
      beta_initializer, gamma_initializer, moving_mean_initializer,
      moving_variance_initializer: Initializers.
      beta_regularizer, gamma_regularizer, beta_constraint, gamma_constraint: Optional.
      renorm, renorm_clipping, renorm_momentum, adjustment: As ``BatchNormalization``
        (batch renormalisation and adjustment are not implemented).
      trainable: Whether the layer trains.
      name: Layer name.
      **kwargs: Base ``Layer`` arguments.

    Raises:
      ValueError: For ``fused=True``.

    >>> import torchflow as tf
    >>> bn = tf.keras.layers.experimental.SyncBatchNormalization()
    >>> bn(tf.ones([4, 3]), training=True).shape
    TensorShape([4, 3])
    """

    def __init__(self, axis=-1, momentum=0.99, epsilon=1e-3, center=True, scale=True,
                 beta_initializer="zeros", gamma_initializer="ones",
                 moving_mean_initializer="zeros", moving_variance_initializer="ones",
                 beta_regularizer=None, gamma_regularizer=None, beta_constraint=None,
                 gamma_constraint=None, renorm=False, renorm_clipping=None,
                 renorm_momentum=0.99, trainable=True, adjustment=None, name=None, **kwargs):
        if kwargs.pop("fused", None):
            raise ValueError("`fused` argument cannot be True for SyncBatchNormalization.")
        super().__init__(axis=axis, momentum=momentum, epsilon=epsilon, center=center,
                         scale=scale, beta_initializer=beta_initializer,
                         gamma_initializer=gamma_initializer,
                         moving_mean_initializer=moving_mean_initializer,
                         moving_variance_initializer=moving_variance_initializer,
                         beta_regularizer=beta_regularizer, gamma_regularizer=gamma_regularizer,
                         beta_constraint=beta_constraint, gamma_constraint=gamma_constraint,
                         renorm=renorm, renorm_clipping=renorm_clipping,
                         renorm_momentum=renorm_momentum, fused=False, trainable=trainable,
                         adjustment=adjustment, name=name, **kwargs)

    def _moments(self, x):
        ctx = get_replica_context()
        if ctx is None:  # cross-replica context: this call's batch alone
            return moments(x, self._reduce, keepdims=True)
        local_sum = reduce_sum(x, self._reduce, keepdims=True)
        local_sq = reduce_sum(square(x), self._reduce, keepdims=True)
        count = cast(reduce_prod(stack([shape(x)[a] for a in self._reduce])), x.dtype)
        if ctx.num_replicas_in_sync > 1:
            total, total_sq = _sum_across_replicas(ctx, local_sum, local_sq)
            count = ctx.all_reduce(ReduceOp.SUM, count)
        else:
            total, total_sq = local_sum, local_sq
        mean = total / count
        return mean, total_sq / count - square(mean)

    def call(self, inputs, training=None):
        training = bool(training) and self.trainable
        if not training:
            return super().call(inputs, training=False)
        in_dtype = inputs.dtype
        x = cast(inputs, dtypes.float32) if in_dtype.name in _LOW else inputs
        mean, var = self._moments(x)
        self._update(self.moving_mean, reshape(mean, self.moving_mean.shape))
        self._update(self.moving_variance, reshape(var, self.moving_variance.shape))
        inv = rsqrt(var + self.epsilon)
        gamma = self._param(self.gamma, x)
        if gamma is not None:
            inv = inv * gamma
        beta = self._param(self.beta, x)
        y = x * inv + (beta - mean * inv if beta is not None else -mean * inv)
        return cast(y, in_dtype) if y.dtype != in_dtype else y

    def get_config(self):
        config = super().get_config()
        config.pop("fused", None)
        return config
