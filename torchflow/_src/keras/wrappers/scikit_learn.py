"""``tf.keras.wrappers.scikit_learn``: Keras models as scikit-learn estimators (TF 2.4).

``build_fn`` (a function, a callable object, or the wrapper subclass's ``__call__``)
builds and compiles a fresh model at each ``fit``. ``sk_params`` hold both
``build_fn``'s arguments and ``fit``/``predict``/``evaluate`` arguments (``epochs``,
``batch_size``, ``verbose`` ...); each call takes the ones its signature names, as TF
2.4's wrapper does, so ``sklearn.base.clone``, grid search and ``cross_val_score`` work.
"""

from __future__ import annotations

import copy
import inspect
import types

import numpy as np

from torchflow._src.keras.engine.sequential import Sequential
from torchflow._src.keras.losses.loss import LossFunctionWrapper
from torchflow._src.keras.losses.loss_classes import CategoricalCrossentropy
from torchflow._src.keras.losses.loss_functions import categorical_crossentropy
from torchflow._src.keras.utils.np_utils import to_categorical
from torchflow._src.util.api import public

_PUB = "torchflow.keras.wrappers.scikit_learn"


def _predict_classes(x, batch_size=32, verbose=0):
    """The signature of TF 2.4's ``Sequential.predict_classes`` (for parameter filtering)."""


def _predict_proba(x, batch_size=32, verbose=0):
    """The signature of TF 2.4's ``Sequential.predict_proba`` (for parameter filtering)."""


def _has_arg(fn, name) -> bool:
    try:
        params = inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return False
    p = params.get(name)
    return p is not None and p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)


def _is_categorical_crossentropy(loss) -> bool:
    return (isinstance(loss, CategoricalCrossentropy)
            or (isinstance(loss, LossFunctionWrapper)
                and getattr(loss, "fn", None) is categorical_crossentropy)
            or getattr(loss, "__name__", None) == "categorical_crossentropy"
            or (isinstance(loss, str) and loss == "categorical_crossentropy"))


class BaseWrapper:
    """Base class of the scikit-learn wrappers.

    Args:
      build_fn: A callable returning a compiled Keras model (or None: the subclass's
        ``__call__`` builds it).
      **sk_params: Arguments of ``build_fn`` and of the model's ``fit``, ``predict``,
        ``evaluate`` (and TF 2.4's ``predict_classes``/``predict_proba``).

    Raises:
      ValueError: For a parameter no one of those takes.
    """

    _estimator_type: str | None = None  # scikit-learn < 1.6 reads this

    def __init__(self, build_fn=None, **sk_params):
        self.build_fn = build_fn
        self.sk_params = sk_params
        self.check_params(sk_params)

    def _build_target(self):
        if self.build_fn is None:
            return self.__call__
        if not isinstance(self.build_fn, (types.FunctionType, types.MethodType)):
            return self.build_fn.__call__
        return self.build_fn

    def __sklearn_tags__(self):
        """scikit-learn >= 1.6's estimator tags (classifier or regressor, needs ``y``)."""
        from sklearn.utils import ClassifierTags, RegressorTags, Tags, TargetTags  # optional

        kind = self._estimator_type
        return Tags(estimator_type=kind, target_tags=TargetTags(required=True),
                    classifier_tags=ClassifierTags() if kind == "classifier" else None,
                    regressor_tags=RegressorTags() if kind == "regressor" else None)

    def check_params(self, params):
        """Checks every name in ``params`` is an argument of ``build_fn`` or the model.

        Args:
          params: A dict of parameters.

        Raises:
          ValueError: For a name none of them takes.
        """
        fns = [Sequential.fit, Sequential.predict, _predict_classes, Sequential.evaluate,
               self._build_target()]
        for name in params:
            if name != "nb_epoch" and not any(_has_arg(fn, name) for fn in fns):
                raise ValueError(f"{name} is not a legal parameter")

    def get_params(self, **params):
        """The parameters of this estimator (``sk_params`` and ``build_fn``).

        Returns:
          A dict.
        """
        res = dict(self.sk_params)
        res.update({"build_fn": self.build_fn})
        return res

    def set_params(self, **params):
        """Sets ``sk_params``.

        Args:
          **params: New parameter values.

        Returns:
          self.

        Raises:
          ValueError: For an illegal parameter name.
        """
        self.check_params(params)
        self.sk_params.update(params)
        return self

    def filter_sk_params(self, fn, override=None):
        """The ``sk_params`` (then ``override``) that ``fn`` takes as arguments.

        Args:
          fn: A callable.
          override: A dict of values that win over ``sk_params``.

        Returns:
          A dict.
        """
        res = {k: v for k, v in self.sk_params.items() if _has_arg(fn, k)}
        res.update(override or {})
        return res

    def fit(self, x, y, **kwargs):
        """Builds a new model with ``build_fn`` and trains it.

        Args:
          x: Training inputs (array-like).
          y: Training targets (class indices are one-hot encoded when the model's loss is
            ``categorical_crossentropy``).
          **kwargs: ``Model.fit`` arguments (win over ``sk_params``).

        Returns:
          The ``History`` of ``Model.fit``.
        """
        target = self._build_target()
        self.model = target(**self.filter_sk_params(target))
        if _is_categorical_crossentropy(self.model.loss) and len(np.shape(y)) != 2:
            y = to_categorical(y)
        fit_args = copy.deepcopy(self.filter_sk_params(Sequential.fit))
        fit_args.update(kwargs)
        return self.model.fit(x, y, **fit_args)


@public(_PUB)
class KerasClassifier(BaseWrapper):
    """A scikit-learn classifier around a Keras model (TF 2.4's wrapper).

    Args:
      build_fn: A callable returning a compiled Keras model whose output is class
        probabilities (softmax, or one sigmoid unit for two classes).
      **sk_params: Arguments of ``build_fn`` and of ``fit``/``predict``/``evaluate``.

    Raises:
      ValueError: For an illegal parameter name.

    >>> import torchflow as tf
    >>> def build():
    ...     m = tf.keras.Sequential([tf.keras.layers.Dense(2, activation="softmax")])
    ...     m.compile("sgd", "sparse_categorical_crossentropy", metrics=["accuracy"])
    ...     return m
    >>> clf = tf.keras.wrappers.scikit_learn.KerasClassifier(build, epochs=1, verbose=0)
    >>> sorted(clf.get_params())
    ['build_fn', 'epochs', 'verbose']
    """

    _estimator_type = "classifier"

    def fit(self, x, y, **kwargs):
        """Trains a new model on ``x`` and the labels ``y`` (any sortable labels).

        Args:
          x: Training inputs.
          y: Labels ``[n]`` or ``[n, 1]``, or one-hot ``[n, classes]``.
          **kwargs: ``Model.fit`` arguments.

        Returns:
          The ``History`` of ``Model.fit``.

        Raises:
          ValueError: For ``y`` of another shape.
        """
        y = np.array(y)
        if y.ndim == 2 and y.shape[1] > 1:
            self.classes_ = np.arange(y.shape[1])
        elif (y.ndim == 2 and y.shape[1] == 1) or y.ndim == 1:
            self.classes_ = np.unique(y)
            y = np.searchsorted(self.classes_, y)
        else:
            raise ValueError("Invalid shape for y: " + str(y.shape))
        self.n_classes_ = len(self.classes_)
        return super().fit(x, y, **kwargs)

    def predict(self, x, **kwargs):
        """Class labels for ``x`` (``classes_`` indexed by the arg-max, or by ``p > 0.5``).

        Args:
          x: Inputs.
          **kwargs: ``batch_size``, ``verbose``.

        Returns:
          A NumPy array of labels.
        """
        kwargs = self.filter_sk_params(_predict_classes, kwargs)
        proba = self.model.predict(x, **kwargs)
        if proba.shape[-1] > 1:
            classes = proba.argmax(axis=-1)
        else:
            classes = (proba > 0.5).astype("int32")
        return self.classes_[classes]

    def predict_proba(self, x, **kwargs):
        """Class probabilities ``[n, n_classes]`` (``[1 - p, p]`` for one sigmoid unit).

        Args:
          x: Inputs.
          **kwargs: ``batch_size``, ``verbose``.

        Returns:
          A NumPy array.
        """
        kwargs = self.filter_sk_params(_predict_proba, kwargs)
        probs = self.model.predict(x, **kwargs)
        if probs.shape[1] == 1:
            probs = np.hstack([1 - probs, probs])
        return probs

    def score(self, x, y, **kwargs):
        """The model's accuracy on ``x``, ``y`` (scikit-learn's higher-is-better score).

        Args:
          x: Inputs.
          y: Labels.
          **kwargs: ``Model.evaluate`` arguments.

        Returns:
          The accuracy, a float.

        Raises:
          ValueError: If the model was not compiled with an accuracy metric.
        """
        y = np.searchsorted(self.classes_, y)
        kwargs = self.filter_sk_params(Sequential.evaluate, kwargs)
        loss_name = self.model.loss
        if hasattr(loss_name, "__name__"):
            loss_name = loss_name.__name__
        if loss_name == "categorical_crossentropy" and len(y.shape) != 2:
            y = to_categorical(y)
        outputs = self.model.evaluate(x, y, **kwargs)
        if not isinstance(outputs, list):
            outputs = [outputs]
        for name, output in zip(self.model.metrics_names, outputs):
            if name in ("accuracy", "acc"):
                return output
        raise ValueError("The model is not configured to compute accuracy. You should pass "
                         "`metrics=[\"accuracy\"]` to the `model.compile()` method.")


@public(_PUB)
class KerasRegressor(BaseWrapper):
    """A scikit-learn regressor around a Keras model (TF 2.4's wrapper).

    Args:
      build_fn: A callable returning a compiled Keras model.
      **sk_params: Arguments of ``build_fn`` and of ``fit``/``predict``/``evaluate``.

    Raises:
      ValueError: For an illegal parameter name.

    >>> import torchflow as tf
    >>> def build(units=1):
    ...     m = tf.keras.Sequential([tf.keras.layers.Dense(units)])
    ...     m.compile("sgd", "mse")
    ...     return m
    >>> reg = tf.keras.wrappers.scikit_learn.KerasRegressor(build, units=1, epochs=1)
    >>> reg.get_params()["units"]
    1
    """

    _estimator_type = "regressor"

    def predict(self, x, **kwargs):
        """The model's predictions, squeezed (``[n]`` for one output unit).

        Args:
          x: Inputs.
          **kwargs: ``Model.predict`` arguments.

        Returns:
          A NumPy array.
        """
        kwargs = self.filter_sk_params(Sequential.predict, kwargs)
        return np.squeeze(self.model.predict(x, **kwargs))

    def score(self, x, y, **kwargs):
        """Minus the model's loss on ``x``, ``y`` (scikit-learn's higher-is-better score).

        Args:
          x: Inputs.
          y: Targets.
          **kwargs: ``Model.evaluate`` arguments.

        Returns:
          ``-loss``, a float.
        """
        kwargs = self.filter_sk_params(Sequential.evaluate, kwargs)
        loss = self.model.evaluate(x, y, **kwargs)
        if isinstance(loss, list):
            return -loss[0]
        return -loss
