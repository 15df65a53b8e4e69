"""tf.saved_model's options, constants and Asset against real TF."""

import pytest

import torchflow as tf
from torchflow._src.testing import real_tf

CONSTANTS = ["ASSETS_DIRECTORY", "ASSETS_KEY", "CLASSIFY_INPUTS", "CLASSIFY_METHOD_NAME",
             "CLASSIFY_OUTPUT_CLASSES", "CLASSIFY_OUTPUT_SCORES", "DEBUG_DIRECTORY",
             "DEBUG_INFO_FILENAME_PB", "DEFAULT_SERVING_SIGNATURE_DEF_KEY", "GPU",
             "PREDICT_INPUTS", "PREDICT_METHOD_NAME", "PREDICT_OUTPUTS", "REGRESS_INPUTS",
             "REGRESS_METHOD_NAME", "REGRESS_OUTPUTS", "SAVED_MODEL_FILENAME_PB",
             "SAVED_MODEL_FILENAME_PBTXT", "SAVED_MODEL_SCHEMA_VERSION", "SERVING", "TPU",
             "TRAINING", "VARIABLES_DIRECTORY", "VARIABLES_FILENAME"]


@pytest.mark.parametrize("name", CONSTANTS)
def test_constants_are_tfs(name):
    assert getattr(tf.saved_model, name) == getattr(real_tf().saved_model, name)


def test_variable_policy():
    ours, theirs = tf.saved_model.experimental.VariablePolicy, \
        real_tf().saved_model.experimental.VariablePolicy
    assert [p.name for p in ours] == [p.name for p in theirs]
    assert [p.value for p in ours] == [p.value for p in theirs]
    for value in (None, "save_variable_devices", "EXPAND_DISTRIBUTED_VARIABLES"):
        got = tf.saved_model.SaveOptions(experimental_variable_policy=value)
        want = real_tf().saved_model.SaveOptions(experimental_variable_policy=value)
        assert got.experimental_variable_policy.name == want.experimental_variable_policy.name
    with pytest.raises(ValueError, match="Received invalid VariablePolicy value: bogus."):
        tf.saved_model.SaveOptions(experimental_variable_policy="bogus")


def test_save_options_fields():
    got = tf.saved_model.SaveOptions(namespace_whitelist=["Custom"], save_debug_info=True)
    want = real_tf().saved_model.SaveOptions(namespace_whitelist=["Custom"],
                                             save_debug_info=True)
    for field in ("namespace_whitelist", "save_debug_info", "function_aliases",
                  "experimental_io_device"):
        assert getattr(got, field) == getattr(want, field), field
    # A non-string namespace is TF's ValueError (2.4 and 2.21); a non-list, TypeError.
    with pytest.raises(ValueError, match="Whitelisted namespace must be a string"):
        tf.saved_model.SaveOptions(namespace_whitelist=[1])
    with pytest.raises(TypeError, match="Namespace whitelist must be a list of strings"):
        tf.saved_model.SaveOptions(namespace_whitelist="Custom")


def test_load_options_and_asset(tmp_path):
    assert tf.saved_model.LoadOptions().experimental_io_device is None
    assert tf.saved_model.LoadOptions(experimental_io_device="/job:localhost") \
        .experimental_io_device == "/job:localhost"
    path = tmp_path / "vocab.txt"
    path.write_text("a\n")
    asset = tf.saved_model.Asset(str(path))
    want = real_tf().saved_model.Asset(str(path))
    assert asset.asset_path.numpy() == want.asset_path.numpy()
    assert asset.asset_path.dtype == tf.string
