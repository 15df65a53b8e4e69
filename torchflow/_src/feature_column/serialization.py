"""Feature columns from the configs that ``DenseFeatures.get_config`` writes."""

from __future__ import annotations

from torchflow._src.core import dtypes
from torchflow._src.feature_column import categorical, dense, numeric, sequence

_COLUMNS = {c.__name__: c for c in (
    numeric.NumericColumn, numeric.BucketizedColumn, categorical.IdentityCategoricalColumn,
    categorical.HashedCategoricalColumn, categorical.VocabularyListCategoricalColumn,
    categorical.VocabularyFileCategoricalColumn, categorical.WeightedCategoricalColumn,
    categorical.CrossedColumn, dense.EmbeddingColumn, dense.IndicatorColumn,
    sequence.SequenceNumericColumn, sequence.SequenceCategoricalColumn)}
_OBJECTS = {"TruncatedNormal": dense.TruncatedNormal}


def _from_config(v, custom_objects):
    if isinstance(v, dict) and set(v) == {"class_name", "config"}:
        name = v["class_name"]
        if name in _COLUMNS:
            return deserialize_feature_column(v, custom_objects)
        cls = (custom_objects or {}).get(name) or _OBJECTS.get(name)
        if cls is None:
            raise ValueError(f"Unknown object in a feature column config: {name}")
        config = dict(v["config"])
        return cls.from_config(config) if hasattr(cls, "from_config") else cls(**config)
    if isinstance(v, (list, tuple)) and any(isinstance(x, dict) for x in v):
        return tuple(_from_config(x, custom_objects) for x in v)
    return v


def deserialize_feature_column(config, custom_objects=None):
    """The column a ``{"class_name": ..., "config": ...}`` dict describes.

    Raises:
      ValueError: If the class is not a feature column.
    """
    name = config.get("class_name") if isinstance(config, dict) else None
    cls = _COLUMNS.get(name) or (custom_objects or {}).get(name)
    if cls is None:
        raise ValueError(f"Unknown feature column class: {name}")
    fields = {}
    for k, v in config["config"].items():
        if k == "dtype" and isinstance(v, str):
            v = dtypes.as_dtype(v)
        elif k in ("shape", "boundaries", "vocabulary_list") and isinstance(v, list):
            v = tuple(v)
        elif k == "default_value" and isinstance(v, list):
            v = _tuples(v)
        fields[k] = _from_config(v, custom_objects)
    return cls(**fields)


def _tuples(v):
    return tuple(_tuples(x) for x in v) if isinstance(v, list) else v
