"""`tensor(data)` / `as_tensor(data)` with numpy scalars, numpy arrays and tensors inside
Python lists, against PyTorch: each keeps its own dtype and they promote together (Python
float: the default dtype, int: int64, bool: bool), values exact, the once-per-process
"list of numpy.ndarrays" warning, and the errors of ragged or unsized data."""

import warnings

import numpy as np
import pytest
from conftest import G, check_error

DATA = {
    "np_float64": lambda m: [np.float64(1.5)],
    "np_float64_exact": lambda m: [np.float64(0.1), np.float64(1e-300)],
    "np_float32_float64": lambda m: [np.float32(1), np.float64(2)],
    "np_int32": lambda m: [np.int32(1), np.int32(2)],
    "np_int16_int": lambda m: [np.int16(1), 2],
    "np_float16_float": lambda m: [np.float16(1), 2.0],
    "np_int64_float": lambda m: [np.int64(1), 2.5],
    "np_uint8_bool": lambda m: [np.uint8(3), True],
    "np_bool": lambda m: [np.bool_(True), np.bool_(False)],
    "returns_float64": lambda m: [np.float64(0.99) ** k * 1.0 for k in range(4)],
    "nested_np_scalars": lambda m: [[np.float32(1), 2], [3, 4]],
    "arrays_float64": lambda m: [np.arange(3.0), np.ones(3)],
    "arrays_float32": lambda m: [np.arange(3, dtype=np.float32), np.ones(3, np.float32)],
    "arrays_int32_list": lambda m: [np.array([1, 2], dtype=np.int32), [3, 4]],
    "list_then_int16_array": lambda m: [[1, 2], np.array([3, 4], dtype=np.int16)],
    "arrays_2d": lambda m: [np.eye(2), np.zeros((2, 2))],
    "array_0d_after_int": lambda m: [1, np.array(2)],
    "array_bool": lambda m: [np.array([True, False])],
    "array_empty": lambda m: [np.zeros(0)],
    "tuple_of_arrays": lambda m: (np.array([0]), np.array([1])),
    "tensor_float64": lambda m: [m.tensor(1.5, dtype=m.float64), 2],
    "tensor_int32": lambda m: [m.tensor(1, dtype=m.int32), m.tensor(2, dtype=m.int32)],
    "tensor_float16_float": lambda m: [m.tensor(1.0, dtype=m.float16), 2.0],
    "plain_empty": lambda m: [[], []],
}


def _run(make, m, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t = m.tensor(make(m), **kw)
    return str(t.dtype).split(".")[-1], tuple(t.shape), t.tolist()


@pytest.mark.parametrize("name", sorted(DATA))
def test_tensor_of_numpy_values(name, torch):
    assert _run(DATA[name], G) == _run(DATA[name], torch)


@pytest.mark.parametrize("name", ["arrays_float64", "np_float64", "arrays_int32_list"])
@pytest.mark.parametrize("dtype", ["float32", "int64", "float64"])
def test_tensor_of_numpy_values_given_dtype(name, dtype, torch):
    g = _run(DATA[name], G, dtype=getattr(G, dtype))
    assert g == _run(DATA[name], torch, dtype=getattr(torch, dtype))


def test_as_tensor_of_numpy_values(torch):
    def run(m):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            t = m.as_tensor([np.arange(3.0), np.ones(3)])
        return str(t.dtype).split(".")[-1], t.tolist()

    assert run(G) == run(torch)


def test_list_of_arrays_warns_once_per_process():
    # A fresh process: the warning is TORCH_WARN_ONCE in PyTorch, once per process.
    import subprocess
    import sys

    code = (
        "import warnings, numpy as np, gradrs\n"
        "warnings.simplefilter('always')\n"
        "with warnings.catch_warnings(record=True) as w:\n"
        "    warnings.simplefilter('always')\n"
        "    gradrs.tensor([np.array([0]), np.array([1])])\n"
        "    gradrs.tensor([np.array([0]), np.array([1])])\n"
        "print(len(w), w[0].category.__name__, w[0].message)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == (
        "1 UserWarning Creating a tensor from a list of numpy.ndarrays is extremely slow. "
        "Please consider converting the list to a single numpy.ndarray with numpy.array() "
        "before converting to a tensor."
    )


@pytest.mark.parametrize(
    "make",
    [
        lambda m: [np.array(2), 1],
        lambda m: [np.zeros((3, 3)), np.zeros((3, 2))],
        lambda m: [[np.zeros((3, 3)), np.zeros((3, 2))]],
        lambda m: [np.zeros(2), 1.0],
    ],
)
def test_tensor_of_numpy_values_errors(make, torch):
    def run(m):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            m.tensor(make(m))

    check_error(run)
