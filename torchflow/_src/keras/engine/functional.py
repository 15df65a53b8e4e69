"""The Functional API: a Model defined by a graph of layer calls on KerasTensors."""

from __future__ import annotations

import inspect

from torchflow._src.core import dtypes
from torchflow._src.core.composite_tensor import CompositeTensor
from torchflow._src.core.convert import convert_to_tensor
from torchflow._src.core.tensor import Tensor
from torchflow._src.keras import backend
from torchflow._src.keras.engine import add_loss_layers, serialization
from torchflow._src.keras.engine import input_spec as input_spec_lib
from torchflow._src.keras.engine.base_layer import Layer
from torchflow._src.keras.engine.input_layer import InputLayer
from torchflow._src.keras.engine.keras_tensor import KerasTensor
from torchflow._src.keras.engine.model import Model
from torchflow._src.ops.array_ops import squeeze
from torchflow._src.ops.creation_ops import cast
from torchflow._src.util import nest
from torchflow._src.util.api import public


def _unique_output_names(layers):
    """Output names as TF 2.4 gives them: the layer's name, made unique with ``_1``,
    ``_2``... where one layer gives several outputs (an RNN's outputs and states) or
    a proposal is taken already."""
    names, taken, next_suffix = [], set(), {}
    for layer in layers:
        name = layer.name
        while name in taken:
            k = next_suffix.get(layer.name, 1)
            name = f"{layer.name}_{k}"
            next_suffix[layer.name] = k + 1
        taken.add(name)
        names.append(name)
    return names


@public("torchflow.keras")
class Functional(Model):
    """A Model built from ``inputs`` and ``outputs`` KerasTensors (``tf.keras.Model(inputs, outputs)``).

    Args:
      inputs: A KerasTensor from ``tf.keras.Input``, or a list/dict of them.
      outputs: KerasTensors computed from ``inputs`` (nested lists/dicts allowed).
      name: Model name.

    Raises:
      ValueError: If an input does not come from ``tf.keras.Input`` or an output
        is not reachable from the inputs.
    """

    def __init__(self, inputs=None, outputs=None, name=None, trainable=True, **kwargs):
        if name is None:
            name = backend.unique_object_name("model", zero_based=True)
        Layer.__init__(self, trainable=trainable, name=name, dtype=kwargs.pop("dtype", None))
        self._is_graph_network = True
        self._init_graph_network(inputs, outputs)
        self._init_training_state()

    def _init_graph_network(self, inputs, outputs):
        if isinstance(inputs, (list, tuple)) and len(inputs) == 1 and \
                not isinstance(inputs, dict):
            inputs = inputs[0] if isinstance(inputs, list) and False else inputs
        self._nested_inputs = inputs
        self._nested_outputs = outputs
        self._inputs_flat = nest.flatten(inputs)
        self._outputs_flat = nest.flatten(outputs)
        for x in self._inputs_flat:
            if not isinstance(x, KerasTensor):
                raise ValueError(f"Input tensors to a Functional must come from "
                                 f"`tf.keras.Input`. Received: {x} (missing previous layer "
                                 f"metadata).")
            layer = x._keras_history[0] if x._keras_history else None
            if not isinstance(layer, InputLayer):
                raise ValueError(f"Input tensors to a Functional must come from "
                                 f"`tf.keras.Input`. Received: {x} (missing previous layer "
                                 f"metadata).")
        for x in self._outputs_flat:
            if not isinstance(x, KerasTensor) or x._keras_history is None:
                raise ValueError(f"Output tensors of a Functional model must be the output of a "
                                 f"TensorFlow `Layer` (thus holding past layer metadata). "
                                 f"Found: {x}")
        self._nodes = _topological_nodes(self._outputs_flat)
        input_ids = {id(x) for x in self._inputs_flat}
        available = set(input_ids)
        for node in self._nodes:
            if node.is_input:
                if id(node.outputs) not in input_ids:
                    raise ValueError(f"Graph disconnected: cannot obtain value for tensor "
                                     f"{node.outputs} at layer \"{node.layer.name}\". The "
                                     f"following previous layers were accessed without issue: "
                                     f"{[n.layer.name for n in self._nodes if n.is_input]}")
                continue
            for kt in node.keras_inputs:
                if id(kt) not in available:
                    raise ValueError(f"Graph disconnected: cannot obtain value for tensor {kt} "
                                     f"at layer \"{node.layer.name}\".")
            for kt in nest.flatten(node.outputs):
                available.add(id(kt))
        # tf.keras' layer order (by decreasing depth, ties by traversal order), so
        # that `layers` and `weights`/`get_weights()` line up with tf.keras'.
        self._nodes_by_depth, layers = _map_graph_network(self._inputs_flat,
                                                          self._outputs_flat)
        in_layers = [x._keras_history[0] for x in self._inputs_flat]
        self._self_tracked_layers[:] = []
        for l in layers:
            self._track(l)
        self._input_layers = in_layers
        self._output_layers = [x._keras_history[0] for x in self._outputs_flat]
        self.inputs = self._inputs_flat
        self.outputs = self._outputs_flat
        self.input_names = [l.name for l in in_layers]
        self.output_names = _unique_output_names(self._output_layers)
        self._input_spec = self._make_input_spec()
        self.supports_masking = True  # masks flow through the graph, as in tf.keras
        self.built = True

    def _make_input_spec(self):
        specs = []
        for x in self._inputs_flat:
            shape = x.shape
            if shape.rank is None:
                specs.append(None)
                continue
            dims = shape.as_list()
            specs.append(input_spec_lib.InputSpec(
                shape=[None] + dims[1:], allow_last_axis_squeeze=True,
                name=x._keras_history[0].name))
        if isinstance(self._nested_inputs, dict):
            return specs
        return nest.pack_sequence_as(self._nested_inputs, specs) if not isinstance(
            self._nested_inputs, KerasTensor) else specs[0]

    @property
    def input(self):
        return self._nested_inputs

    @property
    def output(self):
        return self._nested_outputs

    @property
    def input_shape(self):
        return nest.map_structure(lambda t: tuple(t.shape.as_list()), self._nested_inputs)

    @property
    def output_shape(self):
        return nest.map_structure(lambda t: tuple(t.shape.as_list()), self._nested_outputs)

    @property
    def layers(self):
        return list(self._self_tracked_layers)

    def _checkpoint_dependencies(self):
        """TF's names for a graph network's layers in checkpoints: for each of
        ``self.layers`` (a Sequential's without its InputLayer) ``layer_with_weights-K``
        (counting only layers with weights) when it has weights, then ``layer-I``,
        both edges to the same layer; then the Layer's own dependencies."""
        deps = []
        k = 0
        layers = self.layers
        for i, layer in enumerate(layers):
            if layer.weights:
                deps.append((f"layer_with_weights-{k}", layer))
                k += 1
            deps.append((f"layer-{i}", layer))
        seen = {id(layer) for layer in layers}
        used = {n for n, _ in deps}  # a Sequential's tracked InputLayer is not layer-0 again
        deps += [(n, c) for n, c in super()._checkpoint_dependencies()
                 if id(c) not in seen and n not in used]
        return deps

    def _legacy_checkpoint_dependencies(self):
        """The names torchflow's first checkpoint format used (``layer-I`` over the
        tracked layers, a Sequential's InputLayer first), to read such files."""
        return super()._checkpoint_dependencies()

    def _flatten_inputs(self, inputs):
        if isinstance(self._nested_inputs, dict):
            if not isinstance(inputs, dict):
                flat = nest.flatten(inputs)
                if len(flat) != len(self._inputs_flat):
                    raise ValueError(f"Layer {self.name} expects {len(self._inputs_flat)} "
                                     f"input(s), but it received {len(flat)} input tensors.")
                return flat
            keys = sorted(self._nested_inputs)
            missing = [k for k in keys if k not in inputs]
            if missing:
                by_name = {x._keras_history[0].name: x for x in self._inputs_flat}
                try:
                    return [inputs[k] if k in inputs else inputs[by_name[k].name]
                            for k in keys]
                except KeyError:
                    raise ValueError(f"Missing data for input \"{missing[0]}\". You passed a "
                                     f"data dictionary with keys {list(inputs)}. Expected the "
                                     f"following keys: {keys}") from None
            return [inputs[k] for k in keys]
        if isinstance(inputs, dict) and not isinstance(self._nested_inputs, dict):
            names = [x._keras_history[0].name for x in self._inputs_flat]
            if all(n in inputs for n in names):
                return [inputs[n] for n in names]
        flat = nest.flatten(inputs)
        if len(flat) != len(self._inputs_flat):
            raise ValueError(f"Layer {self.name} expects {len(self._inputs_flat)} input(s), but "
                             f"it received {len(flat)} input tensors. Inputs received: "
                             f"{inputs}")
        return flat

    def _eager_call(self, inputs, args, kwargs):
        return Layer._eager_call(self, inputs, args, kwargs)

    # --- add_loss / add_metric of symbolic tensors ------------------------------
    def add_loss(self, losses, inputs=None, **kwargs):
        """Adds losses; a KerasTensor computed from the model's inputs (e.g.
        ``model.add_loss(tf.reduce_sum(x1) * 0.1)``) joins the graph through an
        ``AddLoss`` layer and is added on every call, as tf.keras does.

        Raises:
          ValueError: If a symbolic loss is not computed from the model's inputs.
        """
        for loss in nest.flatten(losses):
            if isinstance(loss, KerasTensor):
                self._check_connected(loss, "loss")
                layer = add_loss_layers.AddLoss(unconditional=False, dtype=loss.dtype)
                self._insert_ancillary(layer(loss))
            else:
                Layer.add_loss(self, loss, inputs=inputs, **kwargs)

    def add_metric(self, value, name=None, aggregation=None, **kwargs):
        """Tracks a metric; a KerasTensor computed from the model's inputs joins the
        graph through an ``AddMetric`` layer and updates the metric on every call,
        as tf.keras does.

        Raises:
          ValueError: Without a ``name`` for a symbolic value, or if it is not
            computed from the model's inputs.
        """
        if not isinstance(value, KerasTensor):
            return Layer.add_metric(self, value, name=name, aggregation=aggregation, **kwargs)
        if name is None:
            raise ValueError("Please provide a name for your metric like "
                             "`self.add_metric(tf.reduce_sum(inputs), name='mean_activation')`")
        self._check_connected(value, "metric")
        layer = add_loss_layers.AddMetric(aggregation, name, dtype=value.dtype)
        self._insert_ancillary(layer(value))
        return None

    def _check_connected(self, kt, what):
        input_ids = {id(x) for x in self._inputs_flat}
        for node in _topological_nodes([kt]):
            if node.is_input and id(node.outputs) not in input_ids:
                raise ValueError(f"Graph disconnected: cannot obtain value for tensor "
                                 f"{node.outputs} at layer \"{node.layer.name}\": the "
                                 f"symbolic {what} must be computed from the model's "
                                 f"inputs.")

    def _insert_ancillary(self, kt):
        """Adds the layers computing ``kt`` that the model lacks (tf.keras's
        ``_insert_layers``): appended to ``layers`` in graph order, their nodes
        run on every call."""
        extras = self.__dict__.get("_graph_extras", []) + [kt]
        object.__setattr__(self, "_graph_extras", extras)
        have = {id(l) for l in self._self_tracked_layers}
        for layer in _map_graph_network(self._inputs_flat, [kt])[1]:
            if id(layer) not in have:
                self._track(layer)
        self._nodes = _topological_nodes(self._outputs_flat + extras)
        self._nodes_by_depth = _map_graph_network(self._inputs_flat,
                                                  self._outputs_flat + extras)[0]

    def call(self, inputs, training=None, mask=None):
        flat = self._flatten_inputs(inputs)
        values = {}
        for kt, v in zip(self._inputs_flat, flat):
            if isinstance(v, CompositeTensor):  # a tf.RaggedTensor input: passed as is
                values[id(kt)] = v
                continue
            if not isinstance(v, Tensor):
                v = convert_to_tensor(v)
            if v._dtype is not kt.dtype and (v._dtype.is_floating or v._dtype.is_integer) \
                    and kt.dtype is not dtypes.string:
                m = getattr(v, "_keras_mask", None)
                v = cast(v, kt.dtype)
                if m is not None:
                    v._keras_mask = m
            kt_rank = kt.shape.rank
            if kt_rank is not None and v.ndim == kt_rank + 1 and v.shape[-1] == 1:
                v = squeeze(v, axis=-1)
            values[id(kt)] = v
        if mask is not None:
            for kt, m in zip(self._inputs_flat, nest.flatten(mask)):
                if m is not None:
                    values[id(kt)]._keras_mask = m
        for layer, in_id, const_kwargs, pass_training, out_id, node in self._call_plan():
            if in_id is not None:  # one KerasTensor argument, constant keyword arguments
                kwargs = dict(const_kwargs) if const_kwargs else {}
                if training is not None and pass_training:
                    kwargs["training"] = training
                out = layer(values[in_id], **kwargs)
                if out_id is not None and type(out) is Tensor:
                    values[out_id] = out
                    continue
            else:
                sub = lambda x: values[id(x)] if isinstance(x, KerasTensor) else x  # noqa: E731
                args = nest.map_structure(sub, node.call_args)
                kwargs = nest.map_structure(sub, node.call_kwargs)
                if training is not None and pass_training:
                    kwargs["training"] = training
                out = layer(*args, **kwargs)
            for kt, v in zip(nest.flatten(node.outputs), nest.flatten(out)):
                values[id(kt)] = v
        return nest.pack_sequence_as(self._nested_outputs,
                                     [values[id(x)] for x in self._outputs_flat])

    def _call_plan(self):
        """``(layer, input id, kwargs, pass training, output id, node)`` per non-input
        node; the input id is set for the common call on one KerasTensor with constant
        keyword arguments (no structure mapping needed), the output id for a single
        KerasTensor output. Rebuilt when the node list changes."""
        cached = self.__dict__.get("_plan_cache")
        if cached is not None and cached[0] is self._nodes and cached[1] == len(self._nodes):
            return cached[2]
        plan = []
        for node in self._nodes:
            if node.is_input:
                continue
            layer = node.layer
            kw = node.call_kwargs
            pass_training = "training" not in kw and layer._call_spec.accepts_training
            args = node.call_args
            simple = (isinstance(args, tuple) and len(args) == 1 and
                      isinstance(args[0], KerasTensor) and isinstance(kw, dict) and
                      not any(isinstance(v, (KerasTensor, list, tuple, dict))
                              for v in kw.values()))
            out_id = id(node.outputs) if isinstance(node.outputs, KerasTensor) else None
            plan.append((layer, id(args[0]) if simple else None, dict(kw) if simple else None,
                         pass_training, out_id, node))
        object.__setattr__(self, "_plan_cache", (self._nodes, len(self._nodes), plan))
        return plan

    def compute_mask(self, inputs, mask=None):
        return None

    # --- config -------------------------------------------------------------
    def get_config(self) -> dict:
        """The graph as layer configs and their inbound connections (TF's format)."""
        layer_configs = []
        node_ids = {}
        for layer in self.layers:
            kept = [n for n in layer._inbound_nodes if n in self._nodes]
            for i, n in enumerate(kept):
                node_ids[id(n)] = i
        for layer in self.layers:
            inbound = []
            for node in layer._inbound_nodes:
                if node not in self._nodes or node.is_input:
                    continue
                data = []
                tf_kwargs = None if _simple_call(node) else _tf_call_kwargs(node, node_ids)
                if tf_kwargs is not None:
                    first = node.call_args[0]
                    for kt in first if isinstance(first, list) else [first]:
                        data.append(_tensor_ref(kt, node_ids) + [tf_kwargs])
                    inbound.append(data)
                    continue
                for inb_layer, node_index, tensor_index, _ in node.iterate_inbound():
                    n = inb_layer._inbound_nodes[node_index]
                    data.append([inb_layer.name, node_ids.get(id(n), 0), tensor_index,
                                 _plain_kwargs(node.call_kwargs)])
                if data and not _simple_call(node):
                    data[0][3] = dict(data[0][3])
                    data[0][3]["__call__"] = _ser_call(node, node_ids)
                inbound.append(data)
            cfg = serialization.serialize_layer(layer)
            cfg["name"] = layer.name
            cfg["inbound_nodes"] = inbound
            layer_configs.append(cfg)

        def ref(kt):
            layer, node_index, tensor_index = kt._keras_history
            n = layer._inbound_nodes[node_index]
            return [layer.name, node_ids.get(id(n), 0), tensor_index]

        return {"name": self.name, "layers": layer_configs,
                "input_layers": nest.map_structure(ref, self._nested_inputs)
                if not isinstance(self._nested_inputs, KerasTensor)
                else [ref(self._nested_inputs)],
                "output_layers": nest.map_structure(ref, self._nested_outputs)
                if not isinstance(self._nested_outputs, KerasTensor)
                else [ref(self._nested_outputs)]}

    @classmethod
    def from_config(cls, config, custom_objects=None, _make_layer=None):
        """Rebuilds the graph from ``get_config()`` output."""
        created = {}
        outputs_by_layer: dict = {}
        pending = list(config["layers"])
        for lc in pending:
            created[lc["name"]] = (_make_layer(lc) if _make_layer is not None else None) or \
                serialization.deserialize_layer(lc, custom_objects)
            if isinstance(created[lc["name"]], InputLayer):
                outputs_by_layer[lc["name"]] = [created[lc["name"]]._kt]
        progress = True
        done = {n for n in outputs_by_layer}
        while progress:
            # Node by node, as tf.keras: a layer's later call may take the output of
            # its own earlier one (a shared layer applied to itself).
            progress = False
            for lc in pending:
                name = lc["name"]
                if name in done:
                    continue
                made = len(outputs_by_layer.get(name, []))
                if made == len(lc["inbound_nodes"]):
                    done.add(name)
                    continue
                node = lc["inbound_nodes"][made]
                kwargs = dict(node[0][3]) if node and len(node[0]) > 3 else {}
                refs = [v for v in kwargs.values() if _is_tensor_ref(v, created)]
                if not (all(d[0] in outputs_by_layer and len(outputs_by_layer[d[0]]) > d[1]
                            for d in list(node) + refs)
                        and _call_refs_ready(node, outputs_by_layer)):
                    continue
                layer = created[name]
                ins = [_pick(outputs_by_layer[d[0]][d[1]], d[2]) for d in node]
                # tf.keras writes tensors among the call's keyword arguments (a
                # MultiHeadAttention's value=) as [layer name, node index, tensor index].
                kwargs = {k: _pick(outputs_by_layer[v[0]][v[1]], v[2])
                          if _is_tensor_ref(v, created) else v for k, v in kwargs.items()}
                call = kwargs.pop("__call__", None)
                if call is not None:
                    args, kwargs = _deser_call(call, outputs_by_layer)
                    out = layer(*args, **kwargs)
                else:
                    out = layer(ins[0] if len(ins) == 1 else ins, **kwargs)
                outputs_by_layer.setdefault(name, []).append(out)
                progress = True

        def resolve(ref):
            return _pick(outputs_by_layer[ref[0]][ref[1]], ref[2])

        def walk(s):
            if isinstance(s, list) and len(s) == 3 and isinstance(s[0], str):
                return resolve(s)
            if isinstance(s, dict):
                return {k: walk(v) for k, v in s.items()}
            return [walk(x) for x in s]

        inputs = walk(config["input_layers"])
        outputs = walk(config["output_layers"])
        if isinstance(inputs, list) and len(inputs) == 1:
            inputs = inputs[0]
        if isinstance(outputs, list) and len(outputs) == 1:
            outputs = outputs[0]
        model = cls(inputs=inputs, outputs=outputs, name=config.get("name"))
        if getattr(model, "_is_graph_network", False):
            _connect_ancillary_layers(model, [created[lc["name"]] for lc in pending],
                                      [outputs_by_layer.get(lc["name"], []) for lc in pending])
        return model


def _connect_ancillary_layers(model, layers, outputs):
    """Layers the outputs do not reach (AddLoss/AddMetric and what feeds them)
    join ``model`` as tf.keras's ``connect_ancillary_layers`` does."""
    have = {id(l) for l in model.layers}
    for layer, outs in zip(layers, outputs):
        if id(layer) in have:
            continue
        for out in outs:
            for kt in nest.flatten(out):
                model._insert_ancillary(kt)
        have = {id(l) for l in model.layers}


def _is_tensor_ref(v, layers) -> bool:
    return (isinstance(v, list) and len(v) == 3 and isinstance(v[0], str) and v[0] in layers
            and isinstance(v[1], int) and isinstance(v[2], int))


def _call_refs_ready(node, outputs_by_layer) -> bool:
    call = node[0][3].get("__call__") if node and len(node[0]) > 3 else None
    if call is None:
        return True
    refs = []

    def walk(x):
        if isinstance(x, dict):
            if "__keras_tensor__" in x:
                refs.append(x["__keras_tensor__"])
            for v in x.values():
                walk(v)
        elif isinstance(x, list):
            for v in x:
                walk(v)

    walk(call)
    return all(r[0] in outputs_by_layer and len(outputs_by_layer[r[0]]) > r[1] for r in refs)


def _simple_call(node) -> bool:
    args = node.call_args
    if len(args) != 1 or any(isinstance(v, KerasTensor) for v in nest.flatten(
            node.call_kwargs)):
        return False
    first = args[0]
    if isinstance(first, KerasTensor):
        return True
    return isinstance(first, list) and all(isinstance(x, KerasTensor) for x in first)


def _tensor_ref(kt, node_ids) -> list:
    layer, node_index, tensor_index = kt._keras_history
    return [layer.name, node_ids.get(id(layer._inbound_nodes[node_index]), 0), tensor_index]


def _tf_call_kwargs(node, node_ids):
    """TF's inbound-node form of ``layer(first, *args, **kwargs)``: positional
    arguments after the first become keyword arguments by ``call``'s parameter names,
    tensors among them ``[layer, node, tensor]`` refs (``MultiHeadAttention(q, v)``
    is written ``[["q", 0, 0, {"value": ["v", 0, 0]}]]``, which tf.keras reads).
    None where the call does not fit that form (torchflow's ``__call__`` record)."""
    args = node.call_args
    if not args or not isinstance(node.call_kwargs, dict):
        return None
    first = args[0]
    if not (isinstance(first, KerasTensor) or isinstance(first, list) and first and
            all(isinstance(x, KerasTensor) for x in first)):
        return None
    try:
        params = list(inspect.signature(node.layer.call).parameters.values())[1:]
    except (TypeError, ValueError):
        return None
    names = [p.name for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    if len(args) - 1 > len(names):
        return None
    merged = dict(zip(names, args[1:]))
    for k, v in node.call_kwargs.items():
        if k in merged:
            return None
        merged[k] = v
    out = {}
    for k, v in merged.items():
        if isinstance(v, KerasTensor):
            out[k] = _tensor_ref(v, node_ids)
        elif v is None or isinstance(v, (bool, int, float, str)):
            out[k] = v
        else:
            return None
    return out


def _ser_call(node, node_ids):
    def ser(x):
        if isinstance(x, KerasTensor):
            layer, node_index, tensor_index = x._keras_history
            n = layer._inbound_nodes[node_index]
            return {"__keras_tensor__": [layer.name, node_ids.get(id(n), 0), tensor_index]}
        if isinstance(x, (list, tuple)):
            return {"__list__": [ser(v) for v in x], "tuple": isinstance(x, tuple)}
        if isinstance(x, dict):
            return {"__dict__": {k: ser(v) for k, v in x.items()}}
        if x is None or isinstance(x, (bool, int, float, str)):
            return x
        if hasattr(x, "numpy"):
            return {"__value__": x.numpy().tolist()}
        if hasattr(x, "name") and hasattr(x, "is_floating"):
            return {"__dtype__": x.name}
        raise TypeError(f"Functional.get_config: cannot serialize the argument {x!r} of layer "
                        f"{node.layer.name}")

    return {"args": ser(list(node.call_args)), "kwargs": ser(dict(node.call_kwargs))}


def _deser_call(call, outputs_by_layer):
    def de(x):
        if isinstance(x, dict):
            if "__keras_tensor__" in x:
                name, node_index, tensor_index = x["__keras_tensor__"]
                return _pick(outputs_by_layer[name][node_index], tensor_index)
            if "__list__" in x:
                items = [de(v) for v in x["__list__"]]
                return tuple(items) if x.get("tuple") else items
            if "__dict__" in x:
                return {k: de(v) for k, v in x["__dict__"].items()}
            if "__value__" in x:
                return x["__value__"]
            if "__dtype__" in x:
                return dtypes.as_dtype(x["__dtype__"])
        return x

    return de(call["args"]), de(call["kwargs"])


def _pick(out, index):
    flat = nest.flatten(out)
    return flat[index]


def _plain_kwargs(kwargs):
    return {k: v for k, v in kwargs.items() if not isinstance(v, KerasTensor)
            and isinstance(v, (int, float, str, bool, type(None)))}


def _map_graph_network(inputs, outputs):
    """``({depth: [nodes]}, layers)`` as tf.keras orders them: a node's depth is one
    more than the deepest node it feeds (outputs at 0), a layer's the largest of its
    nodes'; layers by decreasing depth, ties in order of first visit walking back
    from the outputs; inputs not connected to the outputs at depth 0."""
    order, layer_index, finished = [], {}, set()

    def visit(node):
        if id(node) in finished:
            return
        layer_index.setdefault(id(node.layer), (len(layer_index), node.layer))
        if not node.is_input:
            for parent in node.parent_nodes:
                visit(parent)
        finished.add(id(node))
        order.append(node)

    for kt in outputs:
        layer, idx, _ = kt._keras_history
        visit(layer._inbound_nodes[idx])
    node_depth, layer_depth = {}, {}
    for node in reversed(order):
        depth = max(node_depth.setdefault(id(node), 0), layer_depth.get(id(node.layer), 0))
        layer_depth[id(node.layer)] = node_depth[id(node)] = depth
        for parent in node.parent_nodes:
            node_depth[id(parent)] = max(depth + 1, node_depth.get(id(parent), 0))
    nodes = {id(n): n for n in order}
    for kt in inputs:
        layer = kt._keras_history[0]
        if id(layer) not in layer_depth:
            layer_depth[id(layer)] = 0
            layer_index[id(layer)] = (-1, layer)
            node_depth[id(layer._inbound_nodes[0])] = 0
            nodes[id(layer._inbound_nodes[0])] = layer._inbound_nodes[0]
    by_depth = {}
    for key, depth in node_depth.items():
        by_depth.setdefault(depth, []).append(nodes[key])
    layers = sorted(layer_index.values(),
                    key=lambda il: (-layer_depth[id(il[1])], il[0]))
    return by_depth, [l for _, l in layers]


def _topological_nodes(outputs):
    order = []
    visited = set()

    def visit(node):
        if id(node) in visited:
            return
        visited.add(id(node))
        for parent in node.parent_nodes:
            visit(parent)
        order.append(node)

    for kt in outputs:
        layer, idx, _ = kt._keras_history
        visit(layer._inbound_nodes[idx])
    return order
