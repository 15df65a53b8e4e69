"""tf.keras.wrappers.scikit_learn (TF 2.4's KerasClassifier/KerasRegressor) with real
scikit-learn: fit/predict/predict_proba/score as TF 2.4's wrapper defines them,
get_params/set_params/clone, parameter filtering and errors, cross_val_score and grid
search; cross-validated scores equal the same folds trained in real tf-keras."""

import numpy as np
import pytest

import torchflow as tf
from torchflow._src.testing import real_tf

sklearn = pytest.importorskip("sklearn")
from sklearn.base import clone  # noqa: E402
from sklearn.model_selection import GridSearchCV, StratifiedKFold, cross_val_score  # noqa: E402

W = tf.keras.wrappers.scikit_learn
RNG = np.random.default_rng(0)
X = RNG.normal(size=(60, 3)).astype(np.float32)
LABELS = np.array(["ant", "bee", "cat"])
YI = (X[:, 0] > 0).astype(int) + (X[:, 1] > 0.5).astype(int)
Y = LABELS[YI]


def _classifier(k, units=4, loss="sparse_categorical_crossentropy", out=3, act="softmax"):
    init = k.initializers.RandomUniform(-0.5, 0.5, seed=1)
    m = k.Sequential([k.layers.Dense(units, activation="tanh", input_shape=(3,),
                                     kernel_initializer=init),
                      k.layers.Dense(out, activation=act, kernel_initializer="ones")])
    opt = k.optimizers.legacy.SGD(0.3) if k is not tf.keras else k.optimizers.SGD(0.3)
    m.compile(opt, loss, metrics=["accuracy"])
    return m


def build_clf(units=4, loss="sparse_categorical_crossentropy"):
    return _classifier(tf.keras, units, loss)


def test_classifier_fit_predict_proba_score():
    clf = W.KerasClassifier(build_clf, units=6, epochs=5, batch_size=10, verbose=0)
    hist = clf.fit(X, Y)
    assert len(hist.history["loss"]) == 5  # epochs taken from sk_params
    np.testing.assert_array_equal(clf.classes_, LABELS)
    assert clf.n_classes_ == 3
    probs = clf.model.predict(X)
    np.testing.assert_array_equal(clf.predict(X), LABELS[probs.argmax(-1)])
    np.testing.assert_allclose(clf.predict_proba(X), probs, rtol=1e-6)
    acc = clf.model.evaluate(X, YI, verbose=0)[1]
    assert clf.score(X, Y) == pytest.approx(acc)
    assert clf.model.layers[0].units == 6  # build_fn argument taken from sk_params


def test_categorical_crossentropy_gets_one_hot_labels():
    clf = W.KerasClassifier(build_clf, loss="categorical_crossentropy", epochs=2, verbose=0)
    clf.fit(X, Y)
    assert clf.score(X, Y) == pytest.approx(
        clf.model.evaluate(X, np.eye(3)[YI], verbose=0)[1])


def test_binary_sigmoid_classifier():
    def build():
        return _classifier(tf.keras, loss="binary_crossentropy", out=1, act="sigmoid")
    yb = np.where(X[:, 0] > 0, 7, 3)
    clf = W.KerasClassifier(build, epochs=3, verbose=0)
    clf.fit(X, yb)
    np.testing.assert_array_equal(clf.classes_, [3, 7])
    p = clf.model.predict(X)
    np.testing.assert_allclose(clf.predict_proba(X), np.hstack([1 - p, p]), rtol=1e-6)
    np.testing.assert_array_equal(clf.predict(X), np.array([3, 7])[(p > 0.5).astype("int32")])


def test_params_clone_and_errors():
    clf = W.KerasClassifier(build_clf, units=5, epochs=2, verbose=0)
    assert clf.get_params() == {"build_fn": build_clf, "units": 5, "epochs": 2, "verbose": 0}
    assert clf.set_params(units=7) is clf and clf.sk_params["units"] == 7
    other = clone(clf)
    assert other is not clf and other.get_params() == clf.get_params()
    with pytest.raises(ValueError, match="^foo is not a legal parameter$"):
        W.KerasClassifier(build_clf, foo=1)
    with pytest.raises(ValueError, match="bar is not a legal parameter"):
        clf.set_params(bar=2)
    with pytest.raises(ValueError, match="Invalid shape for y: \\(60, 1, 1\\)"):
        clf.fit(X, Y.reshape(60, 1, 1))

    def no_acc():
        m = tf.keras.Sequential([tf.keras.layers.Dense(3, activation="softmax")])
        m.compile("sgd", "sparse_categorical_crossentropy")
        return m
    c2 = W.KerasClassifier(no_acc, epochs=1, verbose=0)
    c2.fit(X, Y)
    with pytest.raises(ValueError, match="not configured to compute accuracy"):
        c2.score(X, Y)


def test_call_method_subclass_builds_the_model():
    class MyClassifier(W.KerasClassifier):
        def __call__(self, units=3):
            return build_clf(units)
    clf = MyClassifier(units=9, epochs=1, verbose=0)
    clf.fit(X, Y)
    assert clf.model.layers[0].units == 9


def test_cross_val_score_equals_the_same_folds_in_tf_keras():
    ref = real_tf()
    clf = W.KerasClassifier(build_clf, epochs=4, batch_size=10, verbose=0, shuffle=False)
    scores = cross_val_score(clf, X, Y, cv=3)
    expected = []
    for train, test in StratifiedKFold(3).split(X, Y):
        m = _classifier(ref.keras)
        classes = np.unique(Y[train])
        m.fit(X[train], np.searchsorted(classes, Y[train]), epochs=4, batch_size=10,
              verbose=0, shuffle=False)
        expected.append(m.evaluate(X[test], np.searchsorted(classes, Y[test]), verbose=0)[1])
    np.testing.assert_allclose(scores, expected, rtol=1e-5)


def _reg(units=4):
    m = tf.keras.Sequential([tf.keras.layers.Dense(units, activation="relu", input_shape=(3,)),
                             tf.keras.layers.Dense(1)])
    m.compile(tf.keras.optimizers.Adam(0.05), "mse")
    return m


def test_regressor_predict_score_and_grid_search():
    y = X @ np.array([1.0, -1.0, 0.5], np.float32)
    reg = W.KerasRegressor(_reg, epochs=5, verbose=0)
    reg.fit(X, y)
    pred = reg.predict(X)
    assert pred.shape == (60,)
    np.testing.assert_allclose(pred, reg.model.predict(X)[:, 0], rtol=1e-6)
    assert reg.score(X, y) == pytest.approx(-reg.model.evaluate(X, y, verbose=0))
    grid = GridSearchCV(W.KerasRegressor(_reg, epochs=3, verbose=0),
                        {"units": [2, 8], "epochs": [2, 4]}, cv=2)
    grid.fit(X, y)
    assert set(grid.best_params_) == {"units", "epochs"}
    assert len(grid.cv_results_["mean_test_score"]) == 4
    assert np.all(np.array(cross_val_score(reg, X, y, cv=2)) <= 0)
