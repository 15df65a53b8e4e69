"""The docstrings of ``tf.raw_ops``, in the form of TF's generated raw-op docs.

Each raw op's docstring is one summary line, the public function it is the op of,
``Args:`` with every input and attr (its type constraint, from TF's op definition in
``raw_op_types``, then its meaning and default) and ``name``, and ``Returns:``.
``docstring`` builds it when ``raw_ops._make`` makes the op.

Differences from TensorFlow 2.4: the dtype lists are read from the installed TF's
(2.21) op registry, which allows some dtypes 2.4 did not (``AddV2`` on unsigned
integers); attrs added after 2.4 (``bad_indices_policy``, ``TopKV2``'s ``index_type``)
are neither taken nor documented.
"""

from __future__ import annotations

import re

from torchflow._src.ops.raw_op_types import LISTS, OPS

SUMMARY = {  # what each op does, one line
    "Abs": "Computes the absolute value of `x` element-wise.",
    "Acos": "Computes the inverse cosine of `x` element-wise.",
    "Add": "Returns `x + y` element-wise, broadcasting the shapes; joins strings.",
    "AddN": "Adds all the tensors of `inputs` element-wise.",
    "AddV2": "Returns `x + y` element-wise, broadcasting the shapes.",
    "All": "Computes the logical and of `input`'s elements across the dimensions in `axis`.",
    "Any": "Computes the logical or of `input`'s elements across the dimensions in `axis`.",
    "ArgMax": "Returns the index of the largest value along one dimension of `input`.",
    "ArgMin": "Returns the index of the smallest value along one dimension of `input`.",
    "AsString": "Formats each element of a numeric or bool tensor as a string.",
    "Asin": "Computes the inverse sine of `x` element-wise.",
    "Atan": "Computes the inverse tangent of `x` element-wise.",
    "Atan2": "Computes the angle of the point `(x, y)`, `atan(y / x)` in the right quadrant.",
    "AvgPool": "Average pooling over the spatial dimensions of a 4-D `value`.",
    "AvgPool3D": "Average pooling over the three spatial dimensions of a 5-D `input`.",
    "BatchMatMulV2": "Multiplies matrices batch by batch; the batch dimensions broadcast.",
    "BiasAdd": "Adds the 1-D `bias` to the channel dimension of `value`.",
    "BitwiseAnd": "Computes the bitwise and of the integers `x` and `y` element-wise.",
    "BitwiseOr": "Computes the bitwise or of the integers `x` and `y` element-wise.",
    "BitwiseXor": "Computes the bitwise exclusive or of the integers `x` and `y` element-wise.",
    "BroadcastTo": "Broadcasts `input` to the shape `shape` (NumPy's broadcasting rules).",
    "Cast": "Converts `x` to the dtype `DstT`.",
    "Ceil": "Returns the smallest integer not less than `x`, element-wise.",
    "Cholesky": "Computes the Cholesky factor of each symmetric positive definite matrix.",
    "ClipByValue": "Clips `t` to the range [`clip_value_min`, `clip_value_max`] element-wise.",
    "ConcatV2": "Joins the tensors of `values` along dimension `axis`.",
    "Conv2D": "Computes a 2-D convolution of a 4-D `input` with a 4-D `filter`.",
    "Conv2DBackpropInput": "Computes the gradient of a 2-D convolution with respect to its input "
                           "(a transposed convolution).",
    "Conv3D": "Computes a 3-D convolution of a 5-D `input` with a 5-D `filter`.",
    "Cos": "Computes the cosine of `x` element-wise.",
    "Cosh": "Computes the hyperbolic cosine of `x` element-wise.",
    "Cumprod": "Computes the cumulative product of `x` along `axis`.",
    "Cumsum": "Computes the cumulative sum of `x` along `axis`.",
    "DepthToSpace": "Moves blocks of depth (channel) data into spatial blocks.",
    "DepthwiseConv2dNative": "Computes a depthwise 2-D convolution: each input channel is "
                             "convolved with its own filters.",
    "Digamma": "Computes the digamma function, the derivative of `lgamma`, element-wise.",
    "DivNoNan": "Returns `x / y` element-wise, and 0 where `y` is 0.",
    "Einsum": "Contracts the tensors of `inputs` as the Einstein summation `equation` says.",
    "Elu": "Computes the exponential linear unit: `exp(features) - 1` below 0, else `features`.",
    "Equal": "Returns the truth value of `x == y` element-wise, broadcasting the shapes.",
    "Erf": "Computes the Gauss error function of `x` element-wise.",
    "Erfc": "Computes the complementary error function `1 - erf(x)` element-wise.",
    "Exp": "Computes `e ** x` element-wise.",
    "ExpandDims": "Inserts a dimension of length 1 into the shape of `input` at `axis`.",
    "Expm1": "Computes `exp(x) - 1` element-wise, accurately for small `x`.",
    "FakeQuantWithMinMaxArgs": "Fake-quantizes float `inputs` to `num_bits` over the fixed "
                               "range [`min`, `max`].",
    "FakeQuantWithMinMaxVars": "Fake-quantizes float `inputs` to `num_bits` over the range "
                               "given by the scalar tensors `min` and `max`.",
    "Fill": "Creates a tensor of shape `dims` with every element equal to `value`.",
    "Floor": "Returns the largest integer not greater than `x`, element-wise.",
    "FloorDiv": "Returns `x // y` element-wise, rounding towards negative infinity.",
    "FloorMod": "Returns the remainder of floor division element-wise; its sign is `y`'s.",
    "GatherNd": "Gathers slices of `params` at the multi-dimensional `indices`.",
    "GatherV2": "Gathers slices of `params` along `axis` at `indices`.",
    "Greater": "Returns the truth value of `x > y` element-wise, broadcasting the shapes.",
    "GreaterEqual": "Returns the truth value of `x >= y` element-wise, broadcasting the shapes.",
    "HashTableV2": "Creates an empty hash table whose contents are fixed once initialized.",
    "Identity": "Returns a tensor with the same shape and contents as `input`.",
    "InitializeTableFromTextFileV2": "Fills a table from a text file, one entry per line.",
    "Invert": "Flips every bit of the integers `x` (bitwise not).",
    "InvertPermutation": "Computes the inverse of the permutation `x` of 0 ... n-1.",
    "IsFinite": "Returns which elements of `x` are finite (neither inf nor NaN).",
    "IsInf": "Returns which elements of `x` are positive or negative infinity.",
    "IsNan": "Returns which elements of `x` are NaN.",
    "L2Loss": "Computes half the squared L2 norm of `t`: `sum(t ** 2) / 2`.",
    "LeakyRelu": "Computes the leaky ReLU: `features` above 0, `alpha * features` below.",
    "LeftShift": "Shifts the bits of `x` left by `y` places, element-wise.",
    "Less": "Returns the truth value of `x < y` element-wise, broadcasting the shapes.",
    "LessEqual": "Returns the truth value of `x <= y` element-wise, broadcasting the shapes.",
    "Lgamma": "Computes the log of the absolute value of the gamma function element-wise.",
    "Log": "Computes the natural logarithm of `x` element-wise.",
    "Log1p": "Computes `log(1 + x)` element-wise, accurately for small `x`.",
    "LogSoftmax": "Computes log-softmax activations over the last dimension of `logits`.",
    "LogicalAnd": "Returns the truth value of `x AND y` element-wise, broadcasting the shapes.",
    "LogicalNot": "Returns the truth value of `NOT x` element-wise.",
    "LogicalOr": "Returns the truth value of `x OR y` element-wise, broadcasting the shapes.",
    "LookupTableExportV2": "Returns all keys and values of a table.",
    "LookupTableFindV2": "Looks up `keys` in a table; a missing key gets `default_value`.",
    "LookupTableImportV2": "Replaces the contents of a table with `keys` and `values`.",
    "LookupTableInsertV2": "Sets the value of each key of `keys` in a mutable table.",
    "LookupTableRemoveV2": "Removes `keys` (and their values) from a mutable table.",
    "LookupTableSizeV2": "Returns the number of entries of a table.",
    "MatMul": "Multiplies the matrix `a` by the matrix `b`.",
    "MatrixDeterminant": "Computes the determinant of each square matrix of `input`.",
    "MatrixDiagPartV3": "Returns the `k`-th diagonals of each matrix of `input`.",
    "MatrixDiagV3": "Builds batched matrices whose `k`-th diagonals are `diagonal`.",
    "MatrixInverse": "Computes the inverse (or the inverse of the adjoint) of each square matrix.",
    "MatrixSetDiagV3": "Returns `input` with its `k`-th diagonals replaced by `diagonal`.",
    "Max": "Computes the maximum of `input`'s elements across the dimensions in `axis`.",
    "MaxPool": "Max pooling over the spatial dimensions of a 4-D `value`.",
    "MaxPool3D": "Max pooling over the three spatial dimensions of a 5-D `input`.",
    "Maximum": "Returns the larger of `x` and `y` element-wise, broadcasting the shapes.",
    "Mean": "Computes the mean of `input`'s elements across the dimensions in `axis`.",
    "Min": "Computes the minimum of `input`'s elements across the dimensions in `axis`.",
    "Minimum": "Returns the smaller of `x` and `y` element-wise, broadcasting the shapes.",
    "MirrorPad": "Pads `input` with mirrored copies of its own values.",
    "Mul": "Returns `x * y` element-wise, broadcasting the shapes.",
    "Multinomial": "Draws samples from categorical distributions given by unnormalized "
                   "log-probabilities.",
    "MutableDenseHashTableV2": "Creates an empty mutable hash table with open addressing "
        "and reserved empty and deleted keys.",
    "MutableHashTableV2": "Creates an empty mutable hash table.",
    "Neg": "Computes `-x` element-wise.",
    "NotEqual": "Returns the truth value of `x != y` element-wise, broadcasting the shapes.",
    "OneHot": "Returns a one-hot tensor: `on_value` at each index of `indices`, else `off_value`.",
    "OnesLike": "Returns a tensor of ones with the shape and dtype of `x`.",
    "Pack": "Stacks the tensors of `values`, all of one shape, into a tensor one rank higher.",
    "Pad": "Pads `input` with zeros.",
    "PadV2": "Pads `input` with the scalar `constant_values`.",
    "Pow": "Computes `x ** y` element-wise, broadcasting the shapes.",
    "Prod": "Computes the product of `input`'s elements across the dimensions in `axis`.",
    "Qr": "Computes the QR decomposition of each matrix of `input`.",
    "QuantizeAndDequantizeV2": "Quantizes then dequantizes `input`, simulating the loss of "
                               "precision of quantization.",
    "QuantizeAndDequantizeV4": "Quantizes then dequantizes `input`; its gradient passes "
                               "through inside the range (the `_v2` Python API).",
    "RandomShuffle": "Shuffles `value` along its first dimension.",
    "RandomStandardNormal": "Outputs random values from a normal distribution with mean 0 "
                            "and standard deviation 1.",
    "RandomUniform": "Outputs random values from a uniform distribution over [0, 1).",
    "RandomUniformInt": "Outputs random integers from a uniform distribution over "
                        "[`minval`, `maxval`).",
    "Range": "Creates the sequence `start, start + delta, ...` up to but not including `limit`.",
    "Rank": "Returns the number of dimensions of `input` as a scalar int32 tensor.",
    "ReadFile": "Reads the whole contents of the file `filename`.",
    "RealDiv": "Returns `x / y` element-wise for real (floating) types.",
    "Reciprocal": "Computes `1 / x` element-wise.",
    "ReduceJoin": "Joins the strings of `inputs` across the given dimensions.",
    "RegexFullMatch": "Returns whether each string of `input` matches the regular expression "
                      "`pattern` in full.",
    "RegexReplace": "Replaces the matches of the regular expression `pattern` in each string "
                    "with `rewrite`.",
    "Relu": "Computes the rectified linear unit `max(features, 0)`.",
    "Relu6": "Computes `min(max(features, 0), 6)`.",
    "Reshape": "Returns `tensor`'s elements in a tensor of shape `shape`.",
    "ResizeBilinear": "Resizes `images` to `size` with bilinear interpolation.",
    "ResizeNearestNeighbor": "Resizes `images` to `size` with nearest-neighbour interpolation.",
    "ReverseSequence": "Reverses the first `seq_lengths[i]` entries of each batch entry `i` "
                       "along `seq_dim`.",
    "ReverseV2": "Reverses `tensor` along the dimensions in `axis`.",
    "RightShift": "Shifts the bits of `x` right by `y` places, element-wise (arithmetic "
                  "shift for signed types).",
    "Rint": "Rounds `x` to the nearest integer element-wise, halves to even.",
    "Round": "Rounds `x` to the nearest integer element-wise, halves to even.",
    "Rsqrt": "Computes `1 / sqrt(x)` element-wise.",
    "ScatterNd": "Scatters `updates` into a zero tensor of shape `shape` at `indices`, adding "
                 "repeated indices.",
    "SegmentSum": "Sums the rows of `data` that share a (sorted) segment id.",
    "SelectV2": "Picks elements from `t` where `condition` is true and from `e` elsewhere, "
                "broadcasting all three.",
    "Selu": "Computes the scaled exponential linear unit `scale * elu(features, alpha)`.",
    "Shape": "Returns the shape of `input` as a 1-D tensor.",
    "Sigmoid": "Computes `1 / (1 + exp(-x))` element-wise.",
    "Sign": "Returns -1, 0 or 1 by the sign of `x`, element-wise.",
    "Sin": "Computes the sine of `x` element-wise.",
    "Sinh": "Computes the hyperbolic sine of `x` element-wise.",
    "Size": "Returns the number of elements of `input`.",
    "Slice": "Extracts the slice of `input` of size `size` starting at `begin`.",
    "Softmax": "Computes softmax activations over the last dimension of `logits`.",
    "Softplus": "Computes `log(exp(features) + 1)`.",
    "Softsign": "Computes `features / (abs(features) + 1)`.",
    "SpaceToDepth": "Moves spatial blocks of `input` into its depth (channel) dimension.",
    "Split": "Splits `value` into `num_split` equal parts along `axis`.",
    "SplitV": "Splits `value` along `axis` into parts of the sizes `size_splits`.",
    "Sqrt": "Computes the square root of `x` element-wise.",
    "Square": "Computes `x * x` element-wise.",
    "SquaredDifference": "Returns `(x - y) * conj(x - y)` element-wise, broadcasting the shapes.",
    "Squeeze": "Removes dimensions of length 1 from the shape of `input`.",
    "StatelessMultinomial": "Draws samples from categorical distributions, deterministically "
                            "for a given `seed`.",
    "StatelessRandomNormal": "Outputs standard normal random values, deterministically for a "
                             "given `seed`.",
    "StatelessRandomUniform": "Outputs random values uniform over [0, 1), deterministically "
                              "for a given `seed`.",
    "StatelessRandomUniformInt": "Outputs random integers uniform over [`minval`, `maxval`), "
                                 "deterministically for a given `seed`.",
    "StatelessTruncatedNormal": "Outputs truncated standard normal random values (within two "
                                "standard deviations), deterministically for a given `seed`.",
    "StaticRegexFullMatch": "Returns whether each string of `input` matches the fixed regular "
                            "expression `pattern` in full.",
    "StaticRegexReplace": "Replaces the matches of the fixed regular expression `pattern` in "
                          "each string with `rewrite`.",
    "StringFormat": "Formats the tensors of `inputs` into a scalar string using `template`.",
    "StringJoin": "Joins the strings of `inputs` element-wise with `separator`.",
    "StringLength": "Returns the length of each string of `input`, in bytes or characters.",
    "StringLower": "Converts each string of `input` to lower case.",
    "StringStrip": "Strips leading and trailing whitespace from each string of `input`.",
    "StringToHashBucket": "Hashes each string to a bucket in [0, `num_buckets`) (legacy hash).",
    "StringToHashBucketFast": "Hashes each string to a bucket in [0, `num_buckets`) with "
                              "FarmHash.",
    "StringToHashBucketStrong": "Hashes each string to a bucket in [0, `num_buckets`) with "
                                "the keyed SipHash.",
    "StringToNumber": "Parses each string of `string_tensor` as a number of type `out_type`.",
    "StringUpper": "Converts each string of `input` to upper case.",
    "Sub": "Returns `x - y` element-wise, broadcasting the shapes.",
    "Substr": "Returns the substring of each string starting at `pos` with length `len`.",
    "Sum": "Computes the sum of `input`'s elements across the dimensions in `axis`.",
    "Tan": "Computes the tangent of `x` element-wise.",
    "Tanh": "Computes the hyperbolic tangent of `x` element-wise.",
    "TensorScatterAdd": "Adds `updates` into a copy of `tensor` at `indices`.",
    "TensorScatterMax": "Takes the maximum of `updates` and a copy of `tensor` at `indices`.",
    "TensorScatterMin": "Takes the minimum of `updates` and a copy of `tensor` at `indices`.",
    "TensorScatterSub": "Subtracts `updates` from a copy of `tensor` at `indices`.",
    "TensorScatterUpdate": "Writes `updates` into a copy of `tensor` at `indices`.",
    "Tile": "Repeats `input` `multiples[i]` times along each dimension `i`.",
    "TopKV2": "Finds the `k` largest entries of the last dimension of `input` and their indices.",
    "Transpose": "Permutes the dimensions of `x` by `perm`.",
    "TruncateDiv": "Returns `x / y` element-wise for integers, rounding towards zero.",
    "TruncateMod": "Returns the remainder of division rounding towards zero; its sign is `x`'s.",
    "TruncatedNormal": "Outputs random values from a normal distribution cut at two standard "
                       "deviations.",
    "Unique": "Finds the unique elements of the 1-D `x`, in order of first appearance.",
    "Unpack": "Unpacks `value` along `axis` into `num` tensors one rank lower.",
    "UnsortedSegmentSum": "Sums the rows of `data` sharing a segment id into `num_segments` "
                          "rows.",
    "Where": "Returns the coordinates of the true (non-zero) elements of `condition`.",
    "WriteFile": "Writes `contents` to the file `filename`, creating or replacing it.",
    "ZerosLike": "Returns a tensor of zeros with the shape and dtype of `x`.",
}

# What an argument means, by its name; ``_PER_OP`` overrides it for one op.
_MEANING = {
    "table_handle": "The table's handle (a scalar `resource` tensor).",
    "key_dtype": "The dtype of the keys.",
    "value_dtype": "The dtype of the values.",
    "container": "Accepted for TF compatibility (resource containers are not used).",
    "shared_name": "Accepted for TF compatibility (tables are not shared by name).",
    "use_node_name_sharing": "Accepted for TF compatibility.",
    "default_value": "The value of a missing key.",
    "empty_key": "A key that marks free buckets; never a table key.",
    "deleted_key": "A key that marks deleted buckets; never a table key.",
    "value_shape": "The shape of each value (torchflow's tables hold scalars).",
    "initial_num_buckets": "The initial number of buckets (a power of 2).",
    "max_load_factor": "The load factor past which the buckets double.",
    "key_index": "The column of the keys; -2 the whole line, -1 the line number.",
    "value_index": "The column of the values; -2 the whole line, -1 the line number.",
    "vocab_size": "The number of lines to read (-1: all).",
    "delimiter": "The column delimiter.",
    "offset": "Added to the line number when it is the value.",
    "Tkeys": "The dtype of the keys.",
    "Tvalues": "The dtype of the values.",
    "axis": "The dimensions to reduce, in `[-rank(input), rank(input))`.",
    "keep_dims": "If true, the reduced dimensions are kept with length 1.",
    "dimension": "The dimension to reduce, in `[-rank(input), rank(input))`; a scalar.",
    "output_type": "The dtype of the returned indices.",
    "out_type": "The dtype of the result.",
    "data_format": "The layout of the data: channels last (`NHWC`, `NDHWC`) or channels "
                   "first (`NCHW`, `NCDHW`).",
    "strides": "The stride of the sliding window for each dimension of the input.",
    "ksize": "The size of the window for each dimension of the input.",
    "padding": "`\"SAME\"` or `\"VALID\"`, the padding algorithm.",
    "dilations": "The dilation factor for each dimension of the input; 1 means none.",
    "explicit_paddings": "The per-side paddings of each dimension when `padding` is "
                         "`\"EXPLICIT\"` (which torchflow refuses).",
    "use_cudnn_on_gpu": "Accepted for TF compatibility; torchflow picks its own kernels.",
    "filter": "The filter: `[height, width, in_channels, out_channels]` for 2-D.",
    "seed": "Together with `seed2`, seeds the op's random stream; both 0 means a "
            "non-deterministic seed.",
    "seed2": "A second seed, to avoid seed collisions.",
    "shape": "The shape of the output tensor.",
    "dtype": "The dtype of the output.",
    "num_bits": "The bit width of the quantization.",
    "narrow_range": "If true, the quantized range is `[1, 2**num_bits - 1]` rather than "
                    "`[0, 2**num_bits - 1]`.",
    "indices": "The index tensor.",
    "updates": "The values to scatter, one per index of `indices`.",
    "tensor": "The tensor to update (it is copied, not changed).",
    "k": "The diagonal offset: a scalar, or a `[low, high]` pair for a band; 0 is the "
         "main diagonal, positive ones are above it.",
    "align": "How diagonals shorter than the longest are aligned: one of `RIGHT_LEFT`, "
             "`LEFT_RIGHT`, `LEFT_LEFT`, `RIGHT_RIGHT` (superdiagonals, then subdiagonals).",
    "padding_value": "The value for the parts outside the diagonals.",
    "diagonal": "The diagonal values.",
    "pattern": "A regular expression in RE2 syntax.",
    "rewrite": "The replacement; `\\1` ... refer to capturing groups.",
    "replace_global": "If true, replaces every non-overlapping match, else only the first.",
    "unit": "`\"BYTE\"` or `\"UTF8_CHAR\"`: what positions and lengths count.",
    "encoding": "The character encoding; `\"\"` changes ASCII letters only.",
    "num_buckets": "The number of buckets.",
    "separator": "The string put between joined strings.",
    "logits": "2-D `[batch_size, num_classes]`: each row holds the unnormalized "
              "log-probabilities of one distribution.",
    "num_samples": "The number of samples to draw for each row.",
    "output_dtype": "The dtype of the sampled class indices.",
    "features": "The pre-activation values.",
    "images": "4-D `[batch, height, width, channels]`.",
    "size": "The new `[height, width]` of the images.",
    "align_corners": "If true, aligns the corner pixels of input and output (torchflow "
                     "refuses it).",
    "half_pixel_centers": "Accepted for TF compatibility; torchflow samples at pixel centers.",
    "block_size": "The side of the spatial block, at least 2.",
    "input_min": "The low end of the quantization range (used when `range_given`).",
    "input_max": "The high end of the quantization range (used when `range_given`).",
    "signed_input": "Whether the quantization is signed.",
    "range_given": "If true, `input_min` and `input_max` give the range, else it is read "
                   "from `input`.",
    "round_mode": "`\"HALF_TO_EVEN\"` or `\"HALF_UP\"`, the rounding of scaled values.",
    "paddings": "`[rank(input), 2]`: how many values to add before and after each "
                "dimension.",
    "values": "The tensors, all of one dtype.",
    "inputs": "The input tensors.",
    "segment_ids": "The segment id of each row of `data`.",
    "data": "The values to sum.",
    "condition": "The condition tensor.",
    "num_split": "The number of parts.",
    "string_tensor": "The strings.",
    "minval": "The lower bound (inclusive) of the values, a scalar.",
    "maxval": "The upper bound (exclusive) of the values, a scalar.",
    "min": "The low end of the quantization range.",
    "max": "The high end of the quantization range.",
    "filename": "The path of the file.",
}
_PER_OP = {
    ("LookupTableFindV2", "keys"): "The keys to look up (the table's key dtype).",
    ("LookupTableImportV2", "keys"): "The keys (the table's key dtype).",
    ("LookupTableImportV2", "values"): "One value per key (the table's value dtype).",
    ("LookupTableInsertV2", "keys"): "The keys (the table's key dtype).",
    ("LookupTableInsertV2", "values"): "One value per key (the table's value dtype).",
    ("LookupTableRemoveV2", "keys"): "The keys to remove (the table's key dtype).",
    ("ArgMax", "input"): "The values.", ("ArgMin", "input"): "The values.",
    ("AsString", "precision"): "The number of digits after the decimal point for floats; "
                               "-1 means the shortest exact form.",
    ("AsString", "scientific"): "If true, floats use scientific notation.",
    ("AsString", "shortest"): "If true, floats use the shorter of fixed and scientific.",
    ("AsString", "width"): "Pads each string to at least this width; -1 for no padding.",
    ("AsString", "fill"): "The character to pad with (one character, or `\"\"` for space).",
    ("BatchMatMulV2", "adj_x"): "If true, uses the adjoint of each matrix of `x`.",
    ("BatchMatMulV2", "adj_y"): "If true, uses the adjoint of each matrix of `y`.",
    ("BatchMatMulV2", "grad_x"): "Marks a gradient computation; ignored.",
    ("BatchMatMulV2", "grad_y"): "Marks a gradient computation; ignored.",
    ("BiasAdd", "bias"): "1-D, the size of `value`'s channel dimension.",
    ("BroadcastTo", "shape"): "The shape to broadcast to.",
    ("Cast", "DstT"): "The dtype to convert to.",
    ("Cast", "Truncate"): "Accepted for TF compatibility; torchflow's casts round the way "
                          "TF's do without it.",
    ("ClipByValue", "clip_value_min"): "The minimum, broadcastable to `t`.",
    ("ClipByValue", "clip_value_max"): "The maximum, broadcastable to `t`.",
    ("ConcatV2", "axis"): "The dimension to join along, in `[-rank, rank)`; a scalar.",
    ("Conv2DBackpropInput", "input_sizes"): "The shape of the convolution's input, the "
                                            "shape of the result.",
    ("Conv2DBackpropInput", "out_backprop"): "The gradient of the convolution's output.",
    ("Conv3D", "filter"): "`[depth, height, width, in_channels, out_channels]`.",
    ("Cumprod", "axis"): "The dimension to scan along; a scalar.",
    ("Cumsum", "axis"): "The dimension to scan along; a scalar.",
    ("Cumprod", "exclusive"): "If true, each output leaves its own element out.",
    ("Cumsum", "exclusive"): "If true, each output leaves its own element out.",
    ("Cumprod", "reverse"): "If true, scans from the end.",
    ("Cumsum", "reverse"): "If true, scans from the end.",
    ("DepthwiseConv2dNative", "filter"): "`[height, width, in_channels, channel_multiplier]`.",
    ("Einsum", "equation"): "The subscripts, as `\"ij,jk->ik\"`.",
    ("ExpandDims", "axis"): "Where to insert the new dimension, in `[-rank - 1, rank]`.",
    ("Fill", "dims"): "The shape of the output.",
    ("Fill", "value"): "The scalar to fill with.",
    ("GatherNd", "indices"): "The last dimension indexes into the leading dimensions of "
                             "`params`.",
    ("GatherV2", "indices"): "The indices to take, in `[0, params.shape[axis])`.",
    ("GatherV2", "axis"): "The dimension of `params` to gather from; a scalar.",
    ("GatherV2", "batch_dims"): "The number of leading batch dimensions `params` and "
                                "`indices` share.",
    ("LeakyRelu", "alpha"): "The slope below 0.",
    ("MatMul", "transpose_a"): "If true, `a` is transposed first.",
    ("MatMul", "transpose_b"): "If true, `b` is transposed first.",
    ("MatMul", "grad_a"): "Marks a gradient computation; ignored.",
    ("MatMul", "grad_b"): "Marks a gradient computation; ignored.",
    ("MatMul", "a"): "A matrix (2-D).", ("MatMul", "b"): "A matrix (2-D).",
    ("MatrixDiagV3", "num_rows"): "The number of rows of the output; -1 infers it.",
    ("MatrixDiagV3", "num_cols"): "The number of columns of the output; -1 infers it.",
    ("MatrixInverse", "adjoint"): "If true, inverts the adjoint of each matrix.",
    ("MirrorPad", "mode"): "`\"REFLECT\"` (the edge is not repeated) or `\"SYMMETRIC\"` "
                           "(it is).",
    ("OneHot", "indices"): "The positions of the on values.",
    ("OneHot", "depth"): "The size of the one-hot dimension; a scalar.",
    ("OneHot", "on_value"): "The scalar at the indexed positions.",
    ("OneHot", "off_value"): "The scalar everywhere else.",
    ("OneHot", "axis"): "Where the one-hot dimension goes; -1 means last.",
    ("Pack", "axis"): "The dimension to stack along, in `[-(R + 1), R + 1)`.",
    ("PadV2", "constant_values"): "The scalar to pad with.",
    ("Qr", "full_matrices"): "If true, computes full-sized `q` and `r`, else the reduced "
                             "ones.",
    ("QuantizeAndDequantizeV2", "axis"): "The dimension with one range per slice; -1 means "
                                         "one range for the whole tensor.",
    ("QuantizeAndDequantizeV4", "axis"): "The dimension with one range per slice; -1 means "
                                         "one range for the whole tensor.",
    ("RandomShuffle", "value"): "The tensor to shuffle.",
    ("RandomStandardNormal", "shape"): "The shape of the output.",
    ("RandomUniform", "shape"): "The shape of the output.",
    ("RandomUniformInt", "shape"): "The shape of the output.",
    ("TruncatedNormal", "shape"): "The shape of the output.",
    ("Range", "start"): "The first value, a scalar.",
    ("Range", "limit"): "The end (exclusive), a scalar.",
    ("Range", "delta"): "The increment, a nonzero scalar.",
    ("ReduceJoin", "reduction_indices"): "The dimensions to join across.",
    ("Reshape", "shape"): "The new shape; one entry may be -1, inferred from the size.",
    ("ReverseSequence", "seq_lengths"): "1-D, the length to reverse for each batch entry.",
    ("ReverseSequence", "seq_dim"): "The dimension that is partly reversed.",
    ("ReverseSequence", "batch_dim"): "The dimension along which the lengths vary.",
    ("ReverseV2", "axis"): "The dimensions to reverse.",
    ("ScatterNd", "shape"): "The shape of the output.",
    ("SelectV2", "t"): "The values where `condition` is true.",
    ("SelectV2", "e"): "The values where `condition` is false.",
    ("Slice", "begin"): "The start of the slice in each dimension.",
    ("Slice", "size"): "The size of the slice in each dimension; -1 takes the rest.",
    ("Split", "axis"): "The dimension to split along; a scalar.",
    ("SplitV", "axis"): "The dimension to split along; a scalar.",
    ("SplitV", "size_splits"): "The size of each part; one may be -1, the rest.",
    ("Squeeze", "axis"): "The dimensions to remove, each of length 1; empty removes all "
                         "dimensions of length 1.",
    ("StatelessMultinomial", "seed"): "A shape `[2]` seed.",
    ("StatelessRandomNormal", "seed"): "A shape `[2]` seed.",
    ("StatelessRandomUniform", "seed"): "A shape `[2]` seed.",
    ("StatelessRandomUniformInt", "seed"): "A shape `[2]` seed.",
    ("StatelessTruncatedNormal", "seed"): "A shape `[2]` seed.",
    ("StringFormat", "template"): "The format string.",
    ("StringFormat", "placeholder"): "The placeholder in `template` each input replaces.",
    ("StringFormat", "summarize"): "How many entries of each end of each dimension are "
                                   "printed.",
    ("StringToHashBucketStrong", "key"): "The two `uint64` halves of the SipHash key.",
    ("Substr", "pos"): "The start of each substring.",
    ("Substr", "len"): "The length of each substring.",
    ("TensorScatterUpdate", "updates"): "The new values, one per index of `indices`.",
    ("Tile", "multiples"): "1-D, the number of copies along each dimension.",
    ("TopKV2", "k"): "The number of top entries, a scalar.",
    ("TopKV2", "sorted"): "If true, the entries come in descending order.",
    ("Transpose", "perm"): "The permutation of the dimensions.",
    ("Unique", "out_idx"): "The dtype of the returned indices.",
    ("Unpack", "num"): "The length of `value` along `axis`.",
    ("Unpack", "axis"): "The dimension to unpack along.",
    ("UnsortedSegmentSum", "num_segments"): "The number of output rows.",
    ("WriteFile", "contents"): "The scalar string to write.",
}

_ATTR_TYPES = {"bool": "`bool`", "int": "`int`", "float": "`float`", "string": "`string`",
               "type": "`tf.DType`", "list(int)": "list of `ints`", "shape": "`tf.TensorShape`",
               "list(string)": "list of `strings`", "list(float)": "list of `floats`"}


def _dtypes(key: str) -> str:
    return ", ".join(f"`{n}`" for n in LISTS[key])


def _arg_phrase(code: str, default, has_default: bool) -> str:
    if code.startswith("a:"):
        kind, _, allowed = code[2:].partition(":")
        what = _ATTR_TYPES.get(kind, f"`{kind}`")
        if allowed:
            what += " from: " + _dtypes(allowed)
        if has_default:
            shown = default.name if hasattr(default, "as_numpy_dtype") else repr(default)
            return f"An optional {what}. Defaults to `{shown}`."
        return f"An {what}." if kind == "int" else f"A {what}."
    if code.startswith("="):
        return f"A `Tensor`. Must have the same type as `{code[1:]}`."
    kind, _, allowed = code.partition(":")
    if kind == "N":
        tail = f" with the same type in: {_dtypes(allowed)}" if allowed else " of one dtype"
        return f"A list of `Tensor` objects{tail}."
    if kind == "L":
        return "A list of `Tensor` objects."
    if kind == "T":
        return (f"A `Tensor`. Must be one of the following types: {_dtypes(allowed)}."
                if allowed else "A `Tensor`.")
    return f"A `Tensor` of type `{kind}`."


def _out_phrase(code: str) -> str:
    """``code`` is one output's code after its name: ``=x``, ``@attr``, ``:int64``, ``:L=x``."""
    if code.startswith(":L"):
        same = code[3:]
        return ("A list of `Tensor` objects" +
                (f" with the same type as `{same}`." if same else "."))
    if code.startswith("="):
        return f"A `Tensor`. Has the same type as `{code[1:]}`."
    if code.startswith("@"):
        return f"A `Tensor` of type `{code[1:]}`."
    return f"A `Tensor` of type `{code[1:]}`."


def _split_out(item: str) -> tuple[str, str]:
    for i, ch in enumerate(item):
        if ch in "=@:":
            return item[:i], item[i:]
    return item, ""


def _wrap(text: str, indent: str, width: int = 88) -> list[str]:
    lines, line = [], indent
    for word in text.split():
        if len(line) + len(word) + 1 > width and line.strip():
            lines.append(line.rstrip())
            line = indent + ("  " if indent else "")
        line += word + " "
    lines.append(line.rstrip())
    return lines


def docstring(op: str, names: list, defaults: dict, fallback: str) -> str:
    """TF's raw-op docstring for ``op``: summary, ``Args:`` (``names`` and ``name``), ``Returns:``.

    ``fallback`` (the public function the op implements, ``tf.add``) is the summary of an
    op that has no entry in the tables yet.
    """
    spec = OPS.get(op, "")
    body, _, outs = spec.partition(" -> ")
    codes = dict(item.split("=", 1) for item in body.split()) if body else {}
    api = re.sub(r"^(tf\.[\w.]+)", r"`\1`", fallback)
    lines = [SUMMARY.get(op, f"TF's `{op}` op."), ""]
    lines += _wrap(f"The op of {api}. Raw ops take keyword arguments only.", "", 90)
    lines += ["", "Args:"]
    for n in names:
        text = _arg_phrase(codes.get(n, "T"), defaults.get(n), n in defaults)
        meaning = _PER_OP.get((op, n), _MEANING.get(n, ""))
        lines += _wrap(f"{n}: {text} {meaning}", "  ")
    lines += ["  name: A name for the operation (optional).", "", "Returns:"]
    items = [_split_out(o) for o in outs.split()]
    if not items:
        lines.append("  None: the op only has an effect.")
    elif len(items) == 1:
        lines += _wrap(_out_phrase(items[0][1]), "  ")
    else:
        lines.append(f"  A tuple of `Tensor` objects ({', '.join(n for n, _ in items)}).")
        lines.append("")
        for n, code in items:
            lines += _wrap(f"{n}: {_out_phrase(code)}", "  ")
    return "\n".join(lines)
