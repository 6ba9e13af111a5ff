"""`python -m gradrs.run script.py [args]`: run an unmodified PyTorch program on gradrs.

The `torch` alias (`gradrs._alias`) is installed first, then the program runs as `__main__`
the way `python script.py args` would run it: `sys.argv` is `[script.py, *args]`, `sys.path[0]`
is the script's directory, `if __name__ == "__main__":` blocks run, and an uncaught exception
prints the script's own traceback (without this runner's frames) and exits with status 1.
`python -m gradrs.run -m package.module args` runs a module as `python -m` would. Child
processes get the alias too: fork children inherit it, and spawn / forkserver children (the
default start methods on macOS, Windows and, from Python 3.14, Linux) re-run the program
through this runner.
"""

from __future__ import annotations

import os
import runpy
import sys
import types
import zipfile

from . import _alias
from ._alias import as_torch

_USAGE = """usage: python -m gradrs.run script.py [args ...]
       python -m gradrs.run -m module [args ...]

Runs a PyTorch program with `import torch` (and every torch.<submodule>) resolving to gradrs."""

# Frames of this runner, of runpy and of the alias finder (whose ModuleNotFoundError for a path
# gradrs lacks should read like Python's own), dropped from a program's traceback.
_HIDDEN_FILES = {__file__, runpy.__file__, "<frozen runpy>", _alias.__file__}


def _report(exc: BaseException) -> None:
    """Print `exc` as the interpreter would for the program: its frames only."""
    frames = []
    tb = exc.__traceback__
    while tb is not None:
        if tb.tb_frame.f_code.co_filename not in _HIDDEN_FILES:
            frames.append(tb)
        tb = tb.tb_next
    tb = None
    for t in reversed(frames):
        tb = types.TracebackType(tb, t.tb_frame, t.tb_lasti, t.tb_lineno)
    sys.excepthook(type(exc), exc.with_traceback(tb), tb)


# The program to re-run in a spawned child: a script path, or "-m module".
_MAIN_ENV = "GRADRS_RUN_MAIN"


def _alias_in_children(target: str, is_module: bool) -> None:
    """Give spawn and forkserver children (multiprocessing, DataLoader workers) the alias too.

    Such a child re-runs the parent's main module before anything else, to find what the
    program defined there; left alone it would run the script's `import torch` without the
    alias. Its preparation data names this runner instead, which installs the alias and then
    runs the program as `__mp_main__` (fork children inherit the alias and need nothing).
    """
    import multiprocessing.spawn as spawn

    os.environ[_MAIN_ENV] = f"-m {target}" if is_module else target
    original = spawn.get_preparation_data

    def get_preparation_data(name):
        data = original(name)
        data.pop("init_main_from_path", None)
        data["init_main_from_name"] = "gradrs.run"
        return data

    spawn.get_preparation_data = get_preparation_data


def _child_main() -> None:
    """This module run as `__mp_main__` in a spawned child: the alias, then the program."""
    as_torch()
    target = os.environ[_MAIN_ENV]
    if target.startswith("-m "):
        namespace = runpy.run_module(target[3:], run_name="__mp_main__")
    else:
        namespace = runpy.run_path(target, run_name="__mp_main__")
    globals().update(namespace)  # what the child's __main__ holds: the program's names


def _run_script(script: str) -> None:
    """Run `script` as python runs `python script`: runpy's `run_path` for a directory, an
    archive or compiled code, a source file as the `__main__` module python makes of it, whose
    `__file__` (and so its warnings' and tracebacks' file names) is absolute, with a
    `SourceFileLoader`, while `sys.argv[0]` stays as typed (`run_path` would set both to the
    path as given)."""
    if os.path.isdir(script) or zipfile.is_zipfile(script) or script.endswith((".pyc", ".pyo")):
        runpy.run_path(script, run_name="__main__")
        return
    import builtins
    import importlib.machinery

    path = os.path.abspath(script)
    with open(path, "rb") as f:
        code = compile(f.read(), path, "exec", dont_inherit=True)
    main = types.ModuleType("__main__")
    main.__dict__.update(__file__=path, __cached__=None, __package__=None, __spec__=None,
                         __loader__=importlib.machinery.SourceFileLoader("__main__", path),
                         __builtins__=builtins)
    saved = sys.modules.get("__main__")
    sys.modules["__main__"] = main
    try:
        exec(code, main.__dict__)
    finally:
        if saved is not None:
            sys.modules["__main__"] = saved


def main(argv: list[str] | None = None) -> None:
    args = sys.argv[1:] if argv is None else list(argv)
    if not args or args[0] in ("-h", "--help"):
        print(_USAGE, file=sys.stdout if args else sys.stderr)
        sys.exit(0 if args else 2)
    if args[0] == "-m":
        if len(args) < 2:
            print("Argument expected for the -m option\n\n" + _USAGE, file=sys.stderr)
            sys.exit(2)
        module, rest = args[1], args[2:]
        run = lambda: runpy.run_module(module, run_name="__main__", alter_sys=True)  # noqa: E731
        sys.argv = [module, *rest]  # runpy replaces argv[0] with the module's file, as python -m
        # sys.path[0] is already the working directory, as under `python -m module`.
    else:
        script, rest = args[0], args[1:]
        if not os.path.exists(script):
            print(f"{sys.executable}: can't open file {os.path.abspath(script)!r}: "
                  "[Errno 2] No such file or directory", file=sys.stderr)
            sys.exit(2)
        sys.argv = [script, *rest]
        if os.path.isdir(script) or zipfile.is_zipfile(script):
            del sys.path[0]  # runpy puts the directory or archive itself first, as python does
        else:
            sys.path[0] = os.path.dirname(os.path.abspath(script))
        run = lambda: _run_script(script)  # noqa: E731
    as_torch()
    _alias_in_children(module if args[0] == "-m" else os.path.abspath(script), args[0] == "-m")
    try:
        run()
    except (SystemExit, KeyboardInterrupt):
        raise
    except BaseException as exc:  # noqa: BLE001 - report whatever the program raised, as python
        _report(exc)
        sys.exit(1)


if __name__ == "__main__":
    main()
elif __name__ == "__mp_main__" and _MAIN_ENV in os.environ:
    _child_main()
