"""The crate's layers only call downwards: tools/layers.py over src/, and the tool's own checks."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
import layers  # noqa: E402


def test_src_imports_only_downwards():
    run = subprocess.run(
        [sys.executable, str(ROOT / "tools" / "layers.py")], capture_output=True, text=True
    )
    assert run.returncode == 0, run.stdout + run.stderr


def write(root, files):
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


def test_upward_import_fails(tmp_path):
    src = write(
        tmp_path,
        {
            "lib.rs": "pub mod ops;\npub mod tensor;\n",
            "ops/mod.rs": "use crate::tensor::Tensor;\n",
            "tensor/mod.rs": "// crate::ops::x in a comment is no import\n"
            "use crate::{dtype::DType, ops::{self, add as plus}};\n",
        },
    )
    problems, _ = layers.check(src=src, known={})
    assert problems == ["tensor (tensor) imports ops (ops), a layer above it (2 references)"]


def test_paths_in_code_super_and_tests(tmp_path):
    src = write(
        tmp_path,
        {
            "backend/cpu/mod.rs": "fn f() { super::super::autograd::graph::g(); }\n"
            "#[cfg(test)]\nmod tests {\n    use crate::ops::x;\n}\n",
            "autograd/graph.rs": "pub fn g() {}\n",
            "ops/mod.rs": "",
        },
    )
    problems, _ = layers.check(src=src, known={})
    assert problems == [
        "backend::cpu (backend) imports autograd::graph (autograd), a layer above it (1 references)"
    ]


def test_stale_known_entry_fails(tmp_path):
    src = write(tmp_path, {"ops/mod.rs": "use crate::tensor::Tensor;\n", "tensor/mod.rs": ""})
    problems, _ = layers.check(src=src, known={("tensor", "ops"): "gone"})
    assert problems == ["KNOWN lists tensor -> ops, which no longer occurs: delete it"]


def test_ops_naming_the_gpu_backend_fails(tmp_path):
    src = write(
        tmp_path,
        {
            "ops/unary.rs": "use crate::backend::wgpu::UnaryOp;\n",
            "backend/wgpu/mod.rs": "pub enum UnaryOp {}\n",
        },
    )
    problems, _ = layers.check(src=src, known={})
    assert problems == [
        "ops::unary (ops) imports backend::wgpu: ops are device-agnostic: they reach the GPU "
        "through kernels (1 references)"
    ]


def test_ops_naming_the_cpu_backend_fails(tmp_path):
    src = write(
        tmp_path,
        {
            "ops/unary.rs": "use crate::backend::cpu::elementwise;\n",
            "backend/cpu/elementwise.rs": "pub fn unary() {}\n",
        },
    )
    problems, _ = layers.check(src=src, known={})
    assert problems == [
        "ops::unary (ops) imports backend::cpu::elementwise: ops are device-agnostic: they reach "
        "the host's loops through kernels too (1 references)"
    ]


def test_no_upward_edge_is_known():
    # Every upward edge is gone: a new one fails test_src_imports_only_downwards, and none
    # may be waved through by listing it.
    assert layers.KNOWN == {}


def test_device_test_in_ops_fails(tmp_path):
    src = write(
        tmp_path,
        {
            "ops/sort.rs": "// x.device().is_gpu() in a comment is no test\n"
            "fn f(x: &Tensor) -> bool { x.device().is_gpu() || x.device() == Device::Gpu }\n",
            "kernels/mod.rs": "fn g(x: &Tensor) -> bool { x.device().is_gpu() }\n",
        },
    )
    problems, _ = layers.check(src=src, known={})
    assert problems == [
        "ops::sort tests a device: ops are device-agnostic: the kernels pick the device (2 tests)"
    ]


def test_python_name_injection_fails(tmp_path):
    py = write(
        tmp_path / "gradrs",
        {
            "ok.py": "# globals()[name] = f in a comment is fine\nx = globals()['x'] == 1\n",
            "sub/bad.py": "for n in ('a', 'b'):\n    globals()[n] = len\n",
            "mod.py": "import sys\nsetattr(sys.modules[__name__], 'f', len)\n",
        },
    )
    assert layers.python_problems(py) == [
        "gradrs/mod.py injects names through globals() or sys.modules (1 times): define them "
        "statically",
        "gradrs/sub/bad.py injects names through globals() or sys.modules (1 times): define them "
        "statically",
    ]


def test_long_files_fail_unless_listed(tmp_path):
    long = "x = 1\n" * (layers.MAX_LINES + 1)
    root = write(
        tmp_path,
        {
            "python/gradrs/big.py": long,
            "python/gradrs/mirror.py": long,
            "python/gradrs/ok.py": "x = 1\n" * layers.MAX_LINES,
            "src/ops/big.rs": long,
            "src/ops/split.rs": long,
            "src/ops/done.rs": "",
        },
    )
    problems = layers.size_problems(
        root,
        mirrors={"python/gradrs/mirror.py": "why"},
        to_split={"src/ops/split.rs": "how", "src/ops/done.rs": "how"},
    )
    n = layers.MAX_LINES
    assert problems == [
        f"python/gradrs/big.py has {n + 1} lines, over {n}: split it into files named for the "
        "families they hold",
        f"src/ops/big.rs has {n + 1} lines, over {n}: split it into files named for the "
        "families they hold",
        f"TO_SPLIT lists src/ops/done.rs, which is no longer over {n} lines: delete the entry",
    ]
