"""Runs the examples in gradrs's docstrings (`>>>` lines) as doctests, one test per docstring.

Every module of the installed package is searched (not the source tree: CI installs the
package), except the ones that start programs (`demo`, `run`). Each example sees `gradrs`
(and `numpy` / `np`) already imported and starts from `gradrs.manual_seed(0)`, so printed random values are stable.
"""

import doctest
import importlib
import pkgutil
import types
import warnings

import numpy
import pytest

import gradrs

_SKIP = {"gradrs.demo", "gradrs.run", "gradrs.__main__"}


def _modules():
    names = ["gradrs"] + [m.name for m in pkgutil.walk_packages(gradrs.__path__, "gradrs.")]
    for name in sorted(names):
        if name in _SKIP:
            continue
        try:
            yield importlib.import_module(name)
        except ImportError:  # an optional dependency (mpi4py, graphviz) is missing
            continue


def _attribute_examples(finder, mod):
    """The examples of native attributes (pyo3 getters such as `dtype.itemsize`), which
    DocTestFinder does not visit (it follows routines, classes and properties only)."""
    for cname, cls in vars(mod).items():
        if not isinstance(cls, type) or cls.__module__ != mod.__name__:
            continue
        for aname, val in vars(cls).items():
            if isinstance(val, (types.GetSetDescriptorType, types.MemberDescriptorType)):
                yield from finder.find(val, f"{mod.__name__}.{cname}.{aname}", module=False,
                                       globs={})


def _examples():
    finder = doctest.DocTestFinder(exclude_empty=True)
    seen = set()
    for mod in _modules():
        for test in [*finder.find(mod, mod.__name__, globs={}), *_attribute_examples(finder, mod)]:
            # A name re-exported by several modules is tested once, where it is defined.
            if test.name in seen or not test.examples:
                continue
            seen.add(test.name)
            yield test


EXAMPLES = sorted(_examples(), key=lambda t: t.name)


def test_examples_found():
    assert len(EXAMPLES) > 0


@pytest.mark.parametrize("test", EXAMPLES, ids=[t.name for t in EXAMPLES])
def test_docstring_example(test):
    # The state examples print under, whatever tests ran before in this process left behind.
    gradrs.set_default_dtype(gradrs.float32)
    gradrs.set_printoptions(profile="default")
    gradrs.set_grad_enabled(True)
    gradrs.autograd.set_detect_anomaly(False)
    gradrs.manual_seed(0)
    test.globs = {"gradrs": gradrs, "numpy": numpy, "np": numpy}
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    out = []
    with warnings.catch_warnings():
        # The examples of deprecated functions (F.upsample & co.) show them working.
        warnings.filterwarnings("ignore", message=".*deprecated")
        warnings.filterwarnings("ignore", message="Anomaly Detection has been enabled")
        runner.run(test, out=out.append)
    result = runner.summarize(verbose=False)
    assert result.failed == 0, "".join(out)
