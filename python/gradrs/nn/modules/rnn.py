"""Recurrent layers: RNN, LSTM, GRU (stacked, bidirectional, packed input) and their cells.

Each time step is a composition of linear, sigmoid/tanh and elementwise ops, in the order of
PyTorch's CPU kernels (aten/src/ATen/native/RNN.cpp): the input projection of a whole layer is
one matmul before the loop; a step adds it to ``linear(h, W_hh, b_hh)`` and applies the gates.
"""

import math
import numbers
import warnings
import weakref

from ... import _native
from .. import functional as F
from .. import init
from ..parameter import Parameter
from ..utils.rnn import PackedSequence
from .module import Module

__all__ = ["RNNBase", "RNN", "LSTM", "GRU", "RNNCellBase", "RNNCell", "LSTMCell", "GRUCell"]

Tensor = _native.Tensor


def _apply_permutation(tensor, permutation, dim=1):
    return tensor.index_select(dim, permutation)


# ---- one step of each cell, on a precomputed input projection `xw` ----------------------------


def _rnn_tanh_step(xw, h, w_hh, b_hh):
    return F.linear(h, w_hh, b_hh).add(xw).tanh()


def _rnn_relu_step(xw, h, w_hh, b_hh):
    return F.linear(h, w_hh, b_hh).add(xw).relu()


def _lstm_step(xw, hc, w_hh, b_hh, w_hr=None):
    h, c = hc
    gates = F.linear(h, w_hh, b_hh).add(xw)
    i, f, g, o = gates.chunk(4, 1)
    c = f.sigmoid() * c + i.sigmoid() * g.tanh()
    h = o.sigmoid() * c.tanh()
    if w_hr is not None:
        h = F.linear(h, w_hr)
    return h, c


def _lstm_layer_step(xw, hc, w_hh, b_hh, w_hr=None):
    """``_lstm_step`` for the steps of ``nn.LSTM`` / ``torch.lstm``: the gates' pointwise part
    is one native op, ``_fused_lstm_cell`` (one ThnnFusedLstmCellBackward0 per step, the
    composed step's values bit for bit, a differentiable backward under create_graph), where
    every tensor is a plain Tensor (a subclass or a vmap BatchedTensor takes the composed
    step and its dispatch). The cells (LSTMCell, ``torch.lstm_cell``) keep the composed
    step's nodes, as PyTorch's CPU cells."""
    h, c = hc
    if type(xw) is Tensor and type(h) is Tensor and type(c) is Tensor:
        hg = F.linear(h, w_hh, b_hh)
        if type(hg) is Tensor:
            h, c = _native._fused_lstm_cell(xw, hg, c)
            if w_hr is not None:
                h = F.linear(h, w_hr)
            return h, c
    return _lstm_step(xw, hc, w_hh, b_hh, w_hr)


def _gru_step(xw, h, w_hh, b_hh):
    xr, xz, xn = xw.chunk(3, 1)
    hr, hz, hn = F.linear(h, w_hh, b_hh).chunk(3, 1)
    r = (hr + xr).sigmoid()
    z = (hz + xz).sigmoid()
    n = (xn + hn * r).tanh()
    # PyTorch's order of operations for (1 - z) * n + z * h
    return (h - n).mul(z).add(n)


_STEPS = {"RNN_TANH": _rnn_tanh_step, "RNN_RELU": _rnn_relu_step, "LSTM": _lstm_layer_step,
          "GRU": _gru_step}


def _hidden_slice(hidden, start, end):
    if isinstance(hidden, tuple):
        return tuple(t.narrow(0, start, end - start) for t in hidden)
    return hidden.narrow(0, start, end - start)


def _hidden_cat(parts):
    if len(parts) == 1:
        return parts[0]
    if isinstance(parts[0], tuple):
        return tuple(_native.cat([p[k] for p in parts]) for k in range(len(parts[0])))
    return _native.cat(parts)


def _hidden_output(hidden):
    return hidden[0] if isinstance(hidden, tuple) else hidden


def _run_direction(step, layer_input, batch_sizes, hidden, weights, reverse):
    """One layer, one direction. ``layer_input`` is time-major, (T, B, features), when
    ``batch_sizes`` is None, else packed rows (the rows of step t are the first
    ``batch_sizes[t]`` sequences). Returns the output (stacked steps, or the packed rows) and
    the final hidden state of every sequence, as PyTorch's FullLayer / PackedLayer /
    ReversedPackedLayer."""
    w_ih, w_hh, b_ih, b_hh, w_hr = weights
    extra = () if w_hr is None else (w_hr,)
    xw = F.linear(layer_input, w_ih, b_ih)  # the input projection of every step at once
    if batch_sizes is None:
        steps = xw.unbind(0)
        sizes = [xw.shape[1]] * len(steps)
    else:
        sizes = batch_sizes
        steps, offset = [], 0
        for bs in sizes:
            steps.append(xw.narrow(0, offset, bs))
            offset += bs
    outputs = [None] * len(steps)
    if not reverse:
        finished = []
        last = sizes[0]
        for t, bs in enumerate(sizes):
            if bs < last:  # sequences that ended: their final state is put aside
                finished.append(_hidden_slice(hidden, bs, last))
                hidden = _hidden_slice(hidden, 0, bs)
            last = bs
            hidden = step(steps[t], hidden, w_hh, b_hh, *extra)
            outputs[t] = _hidden_output(hidden)
        finished.append(hidden)
        final = _hidden_cat(finished[::-1])
    else:
        initial = hidden
        last = sizes[-1]
        hidden = _hidden_slice(initial, 0, last)
        for t in range(len(sizes) - 1, -1, -1):
            bs = sizes[t]
            if bs > last:  # sequences that start here (going backwards) join
                hidden = _hidden_cat([hidden, _hidden_slice(initial, last, bs)])
            last = bs
            hidden = step(steps[t], hidden, w_hh, b_hh, *extra)
            outputs[t] = _hidden_output(hidden)
        final = hidden
    out = _native.stack(outputs) if batch_sizes is None else _native.cat(outputs)
    return out, final


_PLAIN = (Tensor, Parameter)


def _plain(*tensors):
    """Whether these are plain Tensors or Parameters (None standing for an absent weight), the
    ones the native layer ``_native._lstm_layer`` takes: a subclass or a vmap BatchedTensor
    keeps the composed steps and their dispatch, and so does a projection weight (``w_hr``,
    last)."""
    return tensors[-1] is None and all(t is None or type(t) in _PLAIN for t in tensors[:-1])


def _uses_native_layer(input, weights):
    """Whether ``nn.LSTM`` runs a time-major ``input`` through ``_native._lstm_layer``, one
    MkldnnRnnLayerBackward0 per layer and direction, as PyTorch's float32 CPU layers (its
    oneDNN kernel): float32 on the host, no projection."""
    return (type(input) is Tensor and input.dtype == _native.float32 and not input.is_cuda
            and input.numel() != 0 and all(_plain(*w) for w in weights))


def _run_rnn(mode, layer_input, batch_sizes, hx, weights, num_layers, dropout, training,
             bidirectional):
    """Every layer and direction over a time-major input (``batch_sizes`` None) or packed
    rows; returns the output and the final hidden state(s), stacked as
    (num_layers * num_directions, batch, hidden)."""
    step = _STEPS[mode]
    num_directions = 2 if bidirectional else 1
    lstm = mode == "LSTM"
    finals = []
    for layer in range(num_layers):
        outs = []
        for direction in range(num_directions):
            index = layer * num_directions + direction
            hidden = (hx[0][index], hx[1][index]) if lstm else hx[index]
            fused = None
            if lstm and batch_sizes is None and _plain(layer_input, *hidden, *weights[index]):
                fused = _native._lstm_layer(layer_input, *weights[index][:4], *hidden,
                                            direction == 1, bidirectional, num_layers, training)
            if fused is not None:
                out, final = fused[0], (fused[1], fused[2])
            else:
                out, final = _run_direction(step, layer_input, batch_sizes, hidden,
                                            weights[index], direction == 1)
            outs.append(out)
            finals.append(final)
        layer_input = outs[0] if num_directions == 1 else _native.cat(outs, -1)
        if dropout != 0 and training and layer < num_layers - 1:
            layer_input = F.dropout(layer_input, dropout, True)
    if lstm:
        return layer_input, (_native.stack([f[0] for f in finals]),
                             _native.stack([f[1] for f in finals]))
    return layer_input, _native.stack(finals)


class RNNBase(Module):
    r"""Base class for RNN modules (RNN, LSTM, GRU): parameter creation, naming and
    initialisation, input checks. The forward method is each subclass's."""

    __constants__ = ["mode", "input_size", "hidden_size", "num_layers", "bias", "batch_first",
                     "dropout", "bidirectional", "proj_size"]
    __jit_unused_properties__ = ["all_weights"]

    def __init__(self, mode, input_size, hidden_size, num_layers=1, bias=True,
                 batch_first=False, dropout=0.0, bidirectional=False, proj_size=0,
                 device=None, dtype=None):
        factory_kwargs = {"device": device, "dtype": dtype}
        super().__init__()
        self.mode = mode
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.num_layers = num_layers
        self.bias = bias
        self.batch_first = batch_first
        self.dropout = float(dropout)
        self.bidirectional = bidirectional
        self.proj_size = proj_size
        num_directions = 2 if bidirectional else 1

        if (not isinstance(dropout, numbers.Number) or not 0 <= dropout <= 1
                or isinstance(dropout, bool)):
            raise ValueError("dropout should be a number in range [0, 1] representing the "
                             "probability of an element being zeroed")
        if dropout > 0 and num_layers == 1:
            warnings.warn("dropout option adds dropout after all but last recurrent layer, so "
                          "non-zero dropout expects num_layers greater than 1, but got "
                          f"dropout={dropout} and num_layers={num_layers}", stacklevel=2)
        if not isinstance(bias, bool):
            raise TypeError(f"bias should be of type bool, got: {type(bias).__name__}")
        if not isinstance(batch_first, bool):
            raise TypeError(
                f"batch_first should be of type bool, got: {type(batch_first).__name__}")
        if not isinstance(input_size, int):
            raise TypeError(f"input_size should be of type int, got: {type(input_size).__name__}")
        if input_size <= 0:
            raise ValueError("input_size must be greater than zero")
        if not isinstance(hidden_size, int):
            raise TypeError(
                f"hidden_size should be of type int, got: {type(hidden_size).__name__}")
        if hidden_size <= 0:
            raise ValueError("hidden_size must be greater than zero")
        if num_layers <= 0:
            raise ValueError("num_layers must be greater than zero")
        if proj_size < 0:
            raise ValueError(
                "proj_size should be a positive integer or zero to disable projections")
        if proj_size >= hidden_size:
            raise ValueError("proj_size has to be smaller than hidden_size")

        if mode == "LSTM":
            gate_size = 4 * hidden_size
        elif mode == "GRU":
            gate_size = 3 * hidden_size
        elif mode in ("RNN_TANH", "RNN_RELU"):
            gate_size = hidden_size
        else:
            raise ValueError("Unrecognized RNN mode: " + mode)

        self._flat_weights_names = []
        self._all_weights = []
        real_hidden_size = proj_size if proj_size > 0 else hidden_size
        for layer in range(num_layers):
            for direction in range(num_directions):
                layer_input_size = input_size if layer == 0 else real_hidden_size * num_directions
                w_ih = Parameter(_native.empty((gate_size, layer_input_size), **factory_kwargs))
                w_hh = Parameter(_native.empty((gate_size, real_hidden_size), **factory_kwargs))
                layer_params = [w_ih, w_hh]
                names = ["weight_ih_l{}{}", "weight_hh_l{}{}"]
                if bias:
                    layer_params += [Parameter(_native.empty(gate_size, **factory_kwargs)),
                                     Parameter(_native.empty(gate_size, **factory_kwargs))]
                    names += ["bias_ih_l{}{}", "bias_hh_l{}{}"]
                if proj_size > 0:
                    layer_params.append(
                        Parameter(_native.empty((proj_size, hidden_size), **factory_kwargs)))
                    names.append("weight_hr_l{}{}")
                suffix = "_reverse" if direction == 1 else ""
                names = [x.format(layer, suffix) for x in names]
                for name, param in zip(names, layer_params):
                    setattr(self, name, param)
                self._flat_weights_names.extend(names)
                self._all_weights.append(names)
        self._init_flat_weights()
        self.reset_parameters()

    def _init_flat_weights(self):
        self._flat_weights = [getattr(self, wn) if hasattr(self, wn) else None
                              for wn in self._flat_weights_names]
        self._flat_weight_refs = [weakref.ref(w) if w is not None else None
                                  for w in self._flat_weights]
        self.flatten_parameters()

    def _weights_have_changed(self):
        # PyTorch's check (functional_call, parametrizations): each weight read again, until
        # the first that is not the tensor last read (a parametrized weight is recomputed by
        # each read, so its parametrization runs here as in PyTorch, random ones included)
        for ref, name in zip(self._flat_weight_refs, self._flat_weights_names):
            weight = getattr(self, name) if hasattr(self, name) else None
            if weight is not None and ref is not None and ref() is not weight:
                return True
        return False

    def __setattr__(self, attr, value):
        if hasattr(self, "_flat_weights_names") and attr in self._flat_weights_names:
            # keep _flat_weights in step with a reassigned weight
            self._flat_weights[self._flat_weights_names.index(attr)] = value
        super().__setattr__(attr, value)

    def flatten_parameters(self):
        """A no-op, kept so code written for PyTorch runs unchanged.

        PyTorch compacts the weights into one contiguous buffer for cuDNN, which only exists
        on CUDA; gradrs has no cuDNN, its recurrent kernels read each weight where it is, so
        there is nothing to compact (PyTorch's own method is a no-op on the CPU too).
        """

    def _apply(self, fn, recurse=True):
        ret = super()._apply(fn, recurse)
        self._init_flat_weights()
        return ret

    def reset_parameters(self):
        """Re-initializes the parameters as at construction (every weight and bias uniform in +-1/sqrt(hidden_size)).

        Examples:
            >>> gradrs.nn.LSTM(3, 4).reset_parameters()
        """
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    def check_input(self, input, batch_sizes):
        """Checks the input's dtype and dimensions (2 unbatched, 3 batched, or a packed
        sequence) and its feature size; raises PyTorch's error otherwise.

        Args:
            input: the input sequence.
            batch_sizes: the packed sequence's batch sizes, or None.
        """
        weight_dtype = self._flat_weights[0].dtype
        if input.dtype != weight_dtype:
            raise ValueError(
                f"RNN input dtype ({input.dtype}) does not match weight dtype ({weight_dtype}). "
                f"Convert input: input.to({weight_dtype}), or convert model: "
                f"model.to({input.dtype})")
        expected_input_dim = 2 if batch_sizes is not None else 3
        if input.dim() != expected_input_dim:
            raise RuntimeError(
                f"input must have {expected_input_dim} dimensions, got {input.dim()}")
        if self.input_size != input.size(-1):
            raise RuntimeError("input.size(-1) must be equal to input_size. Expected "
                               f"{self.input_size}, got {input.size(-1)}")

    def get_expected_hidden_size(self, input, batch_sizes):
        """The hidden state's shape for this input:
        (num_layers * num_directions, batch, proj_size or hidden_size).

        Args:
            input: the input sequence.
            batch_sizes: the packed sequence's batch sizes, or None.
        """
        if batch_sizes is not None:
            mini_batch = int(batch_sizes[0])
        else:
            mini_batch = input.size(0) if self.batch_first else input.size(1)
        num_directions = 2 if self.bidirectional else 1
        size = self.proj_size if self.proj_size > 0 else self.hidden_size
        return (self.num_layers * num_directions, mini_batch, size)

    def check_hidden_size(self, hx, expected_hidden_size,
                          msg="Expected hidden size {}, got {}"):
        """Raises PyTorch's RuntimeError when `hx`'s shape is not `expected_hidden_size`.

        Args:
            hx: the hidden state given.
            expected_hidden_size: the shape it must have.
            msg: the message format (with two `{}` for the expected and actual shapes).
        """
        if tuple(hx.size()) != tuple(expected_hidden_size):
            raise RuntimeError(msg.format(expected_hidden_size, list(hx.size())))

    def check_forward_args(self, input, hidden, batch_sizes):
        """Checks the input and the initial hidden state of a forward call.

        Args:
            input: the input sequence.
            hidden: the initial hidden state.
            batch_sizes: the packed sequence's batch sizes, or None.
        """
        self.check_input(input, batch_sizes)
        expected_hidden_size = self.get_expected_hidden_size(input, batch_sizes)
        self.check_hidden_size(hidden, expected_hidden_size)

    def permute_hidden(self, hx, permutation):
        """Reorders the batch of a hidden state by `permutation` (for packed sequences sorted by
        length); None leaves it as it is.

        Args:
            hx: the hidden state.
            permutation: batch indices, or None.
        """
        if permutation is None:
            return hx
        return _apply_permutation(hx, permutation)

    def extra_repr(self):
        s = "{input_size}, {hidden_size}"
        if self.proj_size != 0:
            s += ", proj_size={proj_size}"
        if self.num_layers != 1:
            s += ", num_layers={num_layers}"
        if self.bias is not True:
            s += ", bias={bias}"
        if self.batch_first is not False:
            s += ", batch_first={batch_first}"
        if self.dropout != 0:
            s += ", dropout={dropout}"
        if self.bidirectional is not False:
            s += ", bidirectional={bidirectional}"
        return s.format(**self.__dict__)

    def _update_flat_weights(self):
        if self._weights_have_changed():
            self._init_flat_weights()

    def __getstate__(self):
        # as PyTorch: the flat weights brought up to date, their weak references not pickled
        self._update_flat_weights()
        state = super().__getstate__()
        state.pop("_flat_weight_refs", None)
        return state

    def __setstate__(self, d):
        super().__setstate__(d)
        if "_flat_weights" not in d:
            self._flat_weights = [getattr(self, wn) if hasattr(self, wn) else None
                                  for wn in self._flat_weights_names]
        self._flat_weight_refs = [weakref.ref(w) if w is not None else None
                                  for w in self._flat_weights]

    @property
    def all_weights(self):
        """The parameters of every layer and direction, as lists in PyTorch's order (w_ih, w_hh, b_ih, b_hh[, w_hr]).

        Examples:
            >>> [w.shape for w in gradrs.nn.RNN(2, 3).all_weights[0]]
            [gradrs.Size([3, 2]), gradrs.Size([3, 3]), gradrs.Size([3]), gradrs.Size([3])]
        """
        return [[getattr(self, weight) for weight in weights] for weights in self._all_weights]

    def _layer_weights(self):
        """Per (layer, direction): (w_ih, w_hh, b_ih, b_hh, w_hr), None where absent; read from
        the flat weights, as PyTorch's forward (a parametrized weight is not recomputed)."""
        flat = dict(zip(self._flat_weights_names, self._flat_weights))
        out = []
        for names in self._all_weights:
            ws = [flat[n] for n in names]
            w_ih, w_hh = ws[0], ws[1]
            b_ih, b_hh = (ws[2], ws[3]) if self.bias else (None, None)
            w_hr = ws[-1] if self.proj_size > 0 else None
            out.append((w_ih, w_hh, b_ih, b_hh, w_hr))
        return out

    def _run(self, input, batch_sizes, hx):
        """Runs the stack: ``input`` is the packed data (batch_sizes given) or a time-major or
        batch-first 3-D tensor."""
        sizes = None if batch_sizes is None else batch_sizes.tolist()
        if sizes is None and self.batch_first:
            input = input.transpose(0, 1)
            if self.mode == "LSTM" and _uses_native_layer(input, self._layer_weights()):
                # PyTorch's oneDNN layers take a contiguous time-major input (CloneBackward0)
                input = input.contiguous()
        out, hidden = _run_rnn(self.mode, input, sizes, hx, self._layer_weights(),
                               self.num_layers, self.dropout, self.training, self.bidirectional)
        if sizes is None and self.batch_first:
            if self.mode == "LSTM":
                out = out.transpose(0, 1)
            else:
                # PyTorch's RNN/GRU kernels transpose their result in place (transpose_), so
                # the output's node is TransposeBackward1; same values and strides here.
                out = F._one_node("TransposeBackward1", lambda o: o.transpose(0, 1), out,
                                  saves=())
        return out, hidden


class RNN(RNNBase):
    r"""A multi-layer Elman RNN with tanh or ReLU non-linearity:
    :math:`h_t = \tanh(x_t W_{ih}^T + b_{ih} + h_{t-1} W_{hh}^T + b_{hh})`.

    Arguments as PyTorch's: ``RNN(input_size, hidden_size, num_layers=1, nonlinearity='tanh',
    bias=True, batch_first=False, dropout=0.0, bidirectional=False, device=None, dtype=None)``.

    Examples:
        >>> m = gradrs.nn.RNN(4, 8)
        >>> out, h = m(gradrs.randn(5, 3, 4))
        >>> out.shape, h.shape
        (gradrs.Size([5, 3, 8]), gradrs.Size([1, 3, 8]))
    """

    def __init__(self, *args, **kwargs):
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        if len(args) > 3:
            self.nonlinearity = args[3]
            args = args[:3] + args[4:]
        else:
            self.nonlinearity = kwargs.pop("nonlinearity", "tanh")
        if self.nonlinearity == "tanh":
            mode = "RNN_TANH"
        elif self.nonlinearity == "relu":
            mode = "RNN_RELU"
        else:
            raise ValueError(f"Unknown nonlinearity '{self.nonlinearity}'. Select from 'tanh' "
                             "or 'relu'.")
        super().__init__(mode, *args, **kwargs)

    def forward(self, input, hx=None):
        self._update_flat_weights()
        num_directions = 2 if self.bidirectional else 1
        orig_input = input
        is_batched = True
        if isinstance(orig_input, PackedSequence):
            input, batch_sizes, sorted_indices, unsorted_indices = input
            max_batch_size = int(batch_sizes[0])
            if hx is None:
                hx = _native.zeros(self.num_layers * num_directions, max_batch_size,
                                   self.hidden_size, dtype=input.dtype, device=input.device)
            else:
                hx = self.permute_hidden(hx, sorted_indices)
        else:
            batch_sizes = None
            if input.dim() not in (2, 3):
                raise ValueError(
                    f"RNN: Expected input to be 2D or 3D, got {input.dim()}D tensor instead")
            is_batched = input.dim() == 3
            batch_dim = 0 if self.batch_first else 1
            if not is_batched:
                input = input.unsqueeze(batch_dim)
                if hx is not None:
                    if hx.dim() != 2:
                        raise RuntimeError("For unbatched 2-D input, hx should also be 2-D but "
                                           f"got {hx.dim()}-D tensor")
                    hx = hx.unsqueeze(1)
            elif hx is not None and hx.dim() != 3:
                raise RuntimeError(
                    f"For batched 3-D input, hx should also be 3-D but got {hx.dim()}-D tensor")
            max_batch_size = input.size(0) if self.batch_first else input.size(1)
            sorted_indices = None
            unsorted_indices = None
            if hx is None:
                hx = _native.zeros(self.num_layers * num_directions, max_batch_size,
                                   self.hidden_size, dtype=input.dtype, device=input.device)
            else:
                hx = self.permute_hidden(hx, sorted_indices)

        self.check_forward_args(input, hx, batch_sizes)
        output, hidden = self._run(input, batch_sizes, hx)
        if isinstance(orig_input, PackedSequence):
            output_packed = PackedSequence(output, batch_sizes, sorted_indices, unsorted_indices)
            return output_packed, self.permute_hidden(hidden, unsorted_indices)
        if not is_batched:
            output = output.squeeze(batch_dim)
            hidden = hidden.squeeze(1)
        return output, self.permute_hidden(hidden, unsorted_indices)


class LSTM(RNNBase):
    r"""A multi-layer long short-term memory RNN, gates in PyTorch's order (input, forget,
    cell, output), with an optional projection of the hidden state (``proj_size``).

    Arguments as PyTorch's: ``LSTM(input_size, hidden_size, num_layers=1, bias=True,
    batch_first=False, dropout=0.0, bidirectional=False, proj_size=0, device=None,
    dtype=None)``.

    Examples:
        >>> lstm = gradrs.nn.LSTM(input_size=4, hidden_size=8, num_layers=2, batch_first=True)
        >>> out, (h, c) = lstm(gradrs.randn(3, 5, 4))
        >>> out.shape, h.shape, c.shape
        (gradrs.Size([3, 5, 8]), gradrs.Size([2, 3, 8]), gradrs.Size([2, 3, 8]))
    """

    def __init__(self, *args, **kwargs):
        super().__init__("LSTM", *args, **kwargs)

    def get_expected_cell_size(self, input, batch_sizes):
        """The cell state's shape for this input: (num_layers * num_directions, batch,
        hidden_size).

        Args:
            input: the input sequence.
            batch_sizes: the packed sequence's batch sizes, or None.
        """
        if batch_sizes is not None:
            mini_batch = int(batch_sizes[0])
        else:
            mini_batch = input.size(0) if self.batch_first else input.size(1)
        num_directions = 2 if self.bidirectional else 1
        return (self.num_layers * num_directions, mini_batch, self.hidden_size)

    def check_forward_args(self, input, hidden, batch_sizes):
        """Checks the input and the initial (h, c) pair of a forward call.

        Args:
            input: the input sequence.
            hidden: the (h_0, c_0) pair.
            batch_sizes: the packed sequence's batch sizes, or None.
        """
        self.check_input(input, batch_sizes)
        self.check_hidden_size(hidden[0], self.get_expected_hidden_size(input, batch_sizes),
                               "Expected hidden[0] size {}, got {}")
        self.check_hidden_size(hidden[1], self.get_expected_cell_size(input, batch_sizes),
                               "Expected hidden[1] size {}, got {}")

    def permute_hidden(self, hx, permutation):
        """Reorders the batch of both states of an (h, c) pair by `permutation`.

        Args:
            hx: the (h, c) pair.
            permutation: batch indices, or None.
        """
        if permutation is None:
            return hx
        return _apply_permutation(hx[0], permutation), _apply_permutation(hx[1], permutation)

    def forward(self, input, hx=None):
        self._update_flat_weights()
        orig_input = input
        batch_sizes = None
        is_batched = True
        real_hidden_size = self.proj_size if self.proj_size > 0 else self.hidden_size
        if isinstance(orig_input, PackedSequence):
            input, batch_sizes, sorted_indices, unsorted_indices = input
            max_batch_size = int(batch_sizes[0])
            if hx is None:
                hx = self._zero_state(input, max_batch_size, real_hidden_size)
            else:
                hx = self.permute_hidden(hx, sorted_indices)
        else:
            if input.dim() not in (2, 3):
                raise ValueError(
                    f"LSTM: Expected input to be 2D or 3D, got {input.dim()}D instead")
            is_batched = input.dim() == 3
            batch_dim = 0 if self.batch_first else 1
            if not is_batched:
                input = input.unsqueeze(batch_dim)
            max_batch_size = input.size(0) if self.batch_first else input.size(1)
            sorted_indices = None
            unsorted_indices = None
            if hx is None:
                hx = self._zero_state(input, max_batch_size, real_hidden_size)
                self.check_forward_args(input, hx, batch_sizes)
            else:
                if is_batched:
                    if hx[0].dim() != 3 or hx[1].dim() != 3:
                        raise RuntimeError(
                            "For batched 3-D input, hx and cx should also be 3-D but got "
                            f"({hx[0].dim()}-D, {hx[1].dim()}-D) tensors")
                else:
                    if hx[0].dim() != 2 or hx[1].dim() != 2:
                        raise RuntimeError(
                            "For unbatched 2-D input, hx and cx should also be 2-D but got "
                            f"({hx[0].dim()}-D, {hx[1].dim()}-D) tensors")
                    hx = (hx[0].unsqueeze(1), hx[1].unsqueeze(1))
                self.check_forward_args(input, hx, batch_sizes)
                hx = self.permute_hidden(hx, sorted_indices)
        # A packed input is not checked here (PyTorch leaves it to its kernel): mistakes surface
        # as the matmul's shape errors.

        output, hidden = self._run(input, batch_sizes, hx)
        if isinstance(orig_input, PackedSequence):
            output_packed = PackedSequence(output, batch_sizes, sorted_indices, unsorted_indices)
            return output_packed, self.permute_hidden(hidden, unsorted_indices)
        if not is_batched:
            output = output.squeeze(batch_dim)
            hidden = (hidden[0].squeeze(1), hidden[1].squeeze(1))
        return output, self.permute_hidden(hidden, unsorted_indices)

    def _zero_state(self, input, batch, real_hidden_size):
        layers = self.num_layers * (2 if self.bidirectional else 1)
        h = _native.zeros(layers, batch, real_hidden_size, dtype=input.dtype,
                          device=input.device)
        c = _native.zeros(layers, batch, self.hidden_size, dtype=input.dtype,
                          device=input.device)
        return h, c


class GRU(RNNBase):
    r"""A multi-layer gated recurrent unit RNN, gates in PyTorch's order (reset, update, new):
    :math:`n_t = \tanh(W_{in} x_t + b_{in} + r_t \odot (W_{hn} h_{t-1} + b_{hn}))`,
    :math:`h_t = (1 - z_t) \odot n_t + z_t \odot h_{t-1}`.

    Arguments as PyTorch's: ``GRU(input_size, hidden_size, num_layers=1, bias=True,
    batch_first=False, dropout=0.0, bidirectional=False, device=None, dtype=None)``.

    Examples:
        >>> m = gradrs.nn.GRU(4, 8, batch_first=True)
        >>> out, h = m(gradrs.randn(3, 5, 4))
        >>> out.shape, h.shape
        (gradrs.Size([3, 5, 8]), gradrs.Size([1, 3, 8]))
    """

    def __init__(self, *args, **kwargs):
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        super().__init__("GRU", *args, **kwargs)

    def forward(self, input, hx=None):
        self._update_flat_weights()
        orig_input = input
        is_batched = True
        if isinstance(orig_input, PackedSequence):
            input, batch_sizes, sorted_indices, unsorted_indices = input
            max_batch_size = int(batch_sizes[0])
            if hx is None:
                num_directions = 2 if self.bidirectional else 1
                hx = _native.zeros(self.num_layers * num_directions, max_batch_size,
                                   self.hidden_size, dtype=input.dtype, device=input.device)
            else:
                hx = self.permute_hidden(hx, sorted_indices)
        else:
            batch_sizes = None
            if input.dim() not in (2, 3):
                raise ValueError(
                    f"GRU: Expected input to be 2D or 3D, got {input.dim()}D instead")
            is_batched = input.dim() == 3
            batch_dim = 0 if self.batch_first else 1
            if not is_batched:
                input = input.unsqueeze(batch_dim)
                if hx is not None:
                    if hx.dim() != 2:
                        raise RuntimeError("For unbatched 2-D input, hx should also be 2-D but "
                                           f"got {hx.dim()}-D tensor")
                    hx = hx.unsqueeze(1)
            elif hx is not None and hx.dim() != 3:
                raise RuntimeError(
                    f"For batched 3-D input, hx should also be 3-D but got {hx.dim()}-D tensor")
            max_batch_size = input.size(0) if self.batch_first else input.size(1)
            sorted_indices = None
            unsorted_indices = None
            if hx is None:
                num_directions = 2 if self.bidirectional else 1
                hx = _native.zeros(self.num_layers * num_directions, max_batch_size,
                                   self.hidden_size, dtype=input.dtype, device=input.device)
            else:
                hx = self.permute_hidden(hx, sorted_indices)

        self.check_forward_args(input, hx, batch_sizes)
        output, hidden = self._run(input, batch_sizes, hx)
        if isinstance(orig_input, PackedSequence):
            output_packed = PackedSequence(output, batch_sizes, sorted_indices, unsorted_indices)
            return output_packed, self.permute_hidden(hidden, unsorted_indices)
        if not is_batched:
            output = output.squeeze(batch_dim)
            hidden = hidden.squeeze(1)
        return output, self.permute_hidden(hidden, unsorted_indices)


# ---- cells -----------------------------------------------------------------------------------


class RNNCellBase(Module):
    """Base class of RNNCell, LSTMCell and GRUCell: parameters and their initialisation."""

    __constants__ = ["input_size", "hidden_size", "bias"]

    def __init__(self, input_size, hidden_size, bias, num_chunks, device=None, dtype=None):
        factory_kwargs = {"device": device, "dtype": dtype}
        super().__init__()
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.bias = bias
        self.weight_ih = Parameter(
            _native.empty((num_chunks * hidden_size, input_size), **factory_kwargs))
        self.weight_hh = Parameter(
            _native.empty((num_chunks * hidden_size, hidden_size), **factory_kwargs))
        if bias:
            self.bias_ih = Parameter(_native.empty(num_chunks * hidden_size, **factory_kwargs))
            self.bias_hh = Parameter(_native.empty(num_chunks * hidden_size, **factory_kwargs))
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        self.reset_parameters()

    def extra_repr(self):
        s = "{input_size}, {hidden_size}"
        if "bias" in self.__dict__ and self.bias is not True:
            s += ", bias={bias}"
        if "nonlinearity" in self.__dict__ and self.nonlinearity != "tanh":
            s += ", nonlinearity={nonlinearity}"
        return s.format(**self.__dict__)

    def reset_parameters(self):
        """Re-initializes the parameters as at construction (every weight and bias uniform in +-1/sqrt(hidden_size)).

        Examples:
            >>> gradrs.nn.GRUCell(3, 4).reset_parameters()
        """
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    def _check(self, input, hiddens):
        # aten's check_rnn_cell_forward_input and check_rnn_cell_forward_hidden
        if input.size(1) != self.weight_ih.size(1):
            raise RuntimeError(f"input has inconsistent input_size: got {input.size(1)} "
                               f"expected {self.weight_ih.size(1)}")
        for k, h in enumerate(hiddens):
            name = f"hidden{k}"
            if input.size(0) != h.size(0):
                raise RuntimeError(f"Input batch size {input.size(0)} doesn't match {name} "
                                   f"batch size {h.size(0)}")
            if h.size(1) != self.hidden_size:
                raise RuntimeError(f"{name} has inconsistent hidden_size: got {h.size(1)}, "
                                   f"expected {self.hidden_size}")


class RNNCell(RNNCellBase):
    r"""An Elman RNN cell: :math:`h' = \tanh(W_{ih} x + b_{ih} + W_{hh} h + b_{hh})` (or ReLU).

    Examples:
        >>> m = gradrs.nn.RNNCell(4, 8)
        >>> m(gradrs.randn(3, 4)).shape
        gradrs.Size([3, 8])
    """

    __constants__ = ["input_size", "hidden_size", "bias", "nonlinearity"]

    def __init__(self, input_size, hidden_size, bias=True, nonlinearity="tanh", device=None,
                 dtype=None):
        super().__init__(input_size, hidden_size, bias, num_chunks=1, device=device,
                         dtype=dtype)
        self.nonlinearity = nonlinearity

    def forward(self, input, hx=None):
        if input.dim() not in (1, 2):
            raise ValueError(f"RNNCell: Expected input to be 1D or 2D, got {input.dim()}D instead")
        if hx is not None and hx.dim() not in (1, 2):
            raise ValueError(f"RNNCell: Expected hidden to be 1D or 2D, got {hx.dim()}D instead")
        is_batched = input.dim() == 2
        if not is_batched:
            input = input.unsqueeze(0)
        if hx is None:
            hx = _native.zeros(input.size(0), self.hidden_size, dtype=input.dtype,
                               device=input.device)
        else:
            hx = hx.unsqueeze(0) if not is_batched else hx
        if self.nonlinearity not in ("tanh", "relu"):
            raise RuntimeError(f"Unknown nonlinearity: {self.nonlinearity}")
        self._check(input, [hx])
        step = _rnn_tanh_step if self.nonlinearity == "tanh" else _rnn_relu_step
        ret = step(F.linear(input, self.weight_ih, self.bias_ih), hx, self.weight_hh,
                   self.bias_hh)
        if not is_batched:
            ret = ret.squeeze(0)
        return ret


class LSTMCell(RNNCellBase):
    r"""A long short-term memory cell, gates in PyTorch's order (input, forget, cell, output).

    Examples:
        >>> m = gradrs.nn.LSTMCell(4, 8)
        >>> h, c = m(gradrs.randn(3, 4))
        >>> h.shape, c.shape
        (gradrs.Size([3, 8]), gradrs.Size([3, 8]))
    """

    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, num_chunks=4, device=device,
                         dtype=dtype)

    def forward(self, input, hx=None):
        if input.dim() not in (1, 2):
            raise ValueError(
                f"LSTMCell: Expected input to be 1D or 2D, got {input.dim()}D instead")
        if hx is not None:
            for idx, value in enumerate(hx):
                if value.dim() not in (1, 2):
                    raise ValueError(f"LSTMCell: Expected hx[{idx}] to be 1D or 2D, got "
                                     f"{value.dim()}D instead")
        is_batched = input.dim() == 2
        if not is_batched:
            input = input.unsqueeze(0)
        if hx is None:
            zeros = _native.zeros(input.size(0), self.hidden_size, dtype=input.dtype,
                                  device=input.device)
            hx = (zeros, zeros)
        else:
            hx = (hx[0].unsqueeze(0), hx[1].unsqueeze(0)) if not is_batched else hx
        self._check(input, hx)
        ret = _lstm_step(F.linear(input, self.weight_ih, self.bias_ih), tuple(hx),
                         self.weight_hh, self.bias_hh)
        if not is_batched:
            ret = (ret[0].squeeze(0), ret[1].squeeze(0))
        return ret


class GRUCell(RNNCellBase):
    r"""A gated recurrent unit cell, gates in PyTorch's order (reset, update, new).

    Examples:
        >>> m = gradrs.nn.GRUCell(4, 8)
        >>> m(gradrs.randn(3, 4)).shape
        gradrs.Size([3, 8])
    """

    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, num_chunks=3, device=device,
                         dtype=dtype)

    def forward(self, input, hx=None):
        if input.dim() not in (1, 2):
            raise ValueError(f"GRUCell: Expected input to be 1D or 2D, got {input.dim()}D instead")
        if hx is not None and hx.dim() not in (1, 2):
            raise ValueError(f"GRUCell: Expected hidden to be 1D or 2D, got {hx.dim()}D instead")
        is_batched = input.dim() == 2
        if not is_batched:
            input = input.unsqueeze(0)
        if hx is None:
            hx = _native.zeros(input.size(0), self.hidden_size, dtype=input.dtype,
                               device=input.device)
        else:
            hx = hx.unsqueeze(0) if not is_batched else hx
        self._check(input, [hx])
        ret = _gru_step(F.linear(input, self.weight_ih, self.bias_ih), hx, self.weight_hh,
                        self.bias_hh)
        if not is_batched:
            ret = ret.squeeze(0)
        return ret
