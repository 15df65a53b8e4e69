"""``tf.feature_column``: columns describing a model's structured inputs."""

from torchflow._src.feature_column.categorical import (
    categorical_column_with_hash_bucket as categorical_column_with_hash_bucket,
)
from torchflow._src.feature_column.categorical import (
    categorical_column_with_identity as categorical_column_with_identity,
)
from torchflow._src.feature_column.categorical import (
    categorical_column_with_vocabulary_file as categorical_column_with_vocabulary_file,
)
from torchflow._src.feature_column.categorical import (
    categorical_column_with_vocabulary_list as categorical_column_with_vocabulary_list,
)
from torchflow._src.feature_column.categorical import crossed_column as crossed_column
from torchflow._src.feature_column.categorical import (
    weighted_categorical_column as weighted_categorical_column,
)
from torchflow._src.feature_column.dense import embedding_column as embedding_column
from torchflow._src.feature_column.dense import indicator_column as indicator_column
from torchflow._src.feature_column.dense import shared_embeddings as shared_embeddings
from torchflow._src.feature_column.numeric import bucketized_column as bucketized_column
from torchflow._src.feature_column.numeric import numeric_column as numeric_column
from torchflow._src.feature_column.parse_spec import (
    make_parse_example_spec as make_parse_example_spec,
)
from torchflow._src.feature_column.sequence import (
    sequence_categorical_column_with_hash_bucket as sequence_categorical_column_with_hash_bucket,
)
from torchflow._src.feature_column.sequence import (
    sequence_categorical_column_with_identity as sequence_categorical_column_with_identity,
)
from torchflow._src.feature_column.sequence import (
    sequence_categorical_column_with_vocabulary_file as sequence_categorical_column_with_vocabulary_file,
)
from torchflow._src.feature_column.sequence import (
    sequence_categorical_column_with_vocabulary_list as sequence_categorical_column_with_vocabulary_list,
)
from torchflow._src.feature_column.sequence import (
    sequence_numeric_column as sequence_numeric_column,
)
