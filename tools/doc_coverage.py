"""List gradrs's public names without a docstring: Python-defined and native (gradrs._native).

The public API is what a user reaches through the namespaces in NAMESPACES (the ones PyTorch
users import from): a module's `__all__` when it has one, else its names without a leading
underscore that are classes or callables defined in gradrs (imports such as `typing.Any` or
submodules are not counted); for each class defined in gradrs, its public methods and
properties. Each object is counted once, under the first name it is reached by.

A Python-defined class counts as documented only with a docstring of its own; a method also
with the one it inherits (what `help()` shows). Native objects (pyo3 builtins and the
`Tensor` pyclass's methods and attributes) get a `__doc__` only from Rust doc comments (`///`)
on their `#[pyfunction]` / `#[pymethods]` declarations in src/python/; Python cannot set it.

    python tools/doc_coverage.py            # summary table
    python tools/doc_coverage.py --missing  # plus every undocumented name, one per line
    python tools/doc_coverage.py --missing --python-only
    python tools/doc_coverage.py --json     # machine-readable counts and names

`docs/hooks/api_pages.py` uses `public_api()` to write the API reference pages.
"""

import argparse
import importlib
import inspect
import json
import sys
import types

# Namespaces in the order the API reference shows them; each is a page (Tensor is a class).
NAMESPACES = [
    "gradrs",
    "gradrs.Tensor",
    "gradrs.autograd",
    "gradrs.autograd.functional",
    "gradrs.autograd.forward_ad",
    "gradrs.autograd.graph",
    "gradrs.autograd.profiler",
    "gradrs.func",
    "gradrs.nn",
    "gradrs.nn.functional",
    "gradrs.nn.init",
    "gradrs.nn.utils",
    "gradrs.nn.utils.parametrize",
    "gradrs.nn.utils.parametrizations",
    "gradrs.nn.utils.prune",
    "gradrs.nn.utils.rnn",
    "gradrs.nn.parallel",
    "gradrs.optim",
    "gradrs.optim.lr_scheduler",
    "gradrs.optim.swa_utils",
    "gradrs.utils.data",
    "gradrs.utils.checkpoint",
    "gradrs.utils.dlpack",
    "gradrs.utils.benchmark",
    "gradrs.profiler",
    "gradrs.overrides",
    "gradrs.distributed",
    "gradrs.amp",
    "gradrs.random",
    "gradrs.linalg",
    "gradrs.special",
    "gradrs.distributions",
    "gradrs.distributions.constraints",
    "gradrs.distributions.constraint_registry",
    "gradrs.distributions.transforms",
    "gradrs.distributions.kl",
    "gradrs.distributions.utils",
    "gradrs.testing",
    "gradrs.library",
    "gradrs.gpu",
    "gradrs.cuda",
    "gradrs.viz",
]

_NATIVE_TYPES = (
    types.BuiltinFunctionType,
    types.MethodDescriptorType,
    types.GetSetDescriptorType,
    types.MemberDescriptorType,
    types.WrapperDescriptorType,
    types.ClassMethodDescriptorType,
)


def _resolve(path):
    """The module or class named by a dotted path (`gradrs.Tensor` is a class)."""
    try:
        return importlib.import_module(path)
    except ImportError:
        parent, _, name = path.rpartition(".")
        return getattr(importlib.import_module(parent), name)


def _try_resolve(path):
    try:
        return _resolve(path)
    except (ImportError, AttributeError):
        return None


def _ours(obj):
    mod = getattr(obj, "__module__", None) or ""
    if mod.startswith("gradrs"):
        return True
    # pyo3 builtins report their module as the extension's, or nothing at all.
    return isinstance(obj, _NATIVE_TYPES) and (mod == "" or "gradrs" in mod)


def is_native(obj):
    """True for objects defined in Rust: pyo3 functions, methods, attributes and classes."""
    if isinstance(obj, (staticmethod, classmethod)):
        obj = obj.__func__
    if isinstance(obj, property):
        return False
    if isinstance(obj, type):
        return _native_class(obj)
    if isinstance(obj, (types.MemberDescriptorType, types.GetSetDescriptorType)):
        # `__slots__` members of a Python class are descriptors too, but not Rust's.
        return _native_class(obj.__objclass__)
    return isinstance(obj, _NATIVE_TYPES)


def _native_class(cls):
    # pyo3 classes are the ones the extension module exports (their `__module__` may say
    # `gradrs`, so `inspect.getsourcefile` would wrongly find gradrs/__init__.py).
    from gradrs import _native

    return any(cls is v for v in vars(_native).values())


def has_doc(obj, inherited):
    """Whether `help()` shows a docstring written for this object."""
    if isinstance(obj, type):
        doc = vars(obj).get("__doc__")
    elif inherited:
        try:
            doc = inspect.getdoc(obj)
        except Exception:  # noqa: BLE001  (an odd descriptor: treat as undocumented)
            doc = None
    else:
        doc = getattr(obj, "__doc__", None)
    return bool(doc and doc.strip())


def has_example(obj):
    """Whether the object's own docstring has a `>>>` example (run by tests/test_doctests.py)."""
    if isinstance(obj, property):
        obj = obj.fget
    doc = vars(obj).get("__doc__") if isinstance(obj, type) else getattr(obj, "__doc__", None)
    return bool(doc and ">>>" in doc)


def _module_names(mod):
    if hasattr(mod, "__all__"):
        names = list(mod.__all__)
    else:
        names = sorted(n for n in dir(mod) if not n.startswith("_"))
    out = []
    for n in names:
        try:
            obj = getattr(mod, n)
        except AttributeError:
            continue
        if isinstance(obj, types.ModuleType):
            continue
        if not (isinstance(obj, type) or callable(obj)):
            continue  # data (dtypes, constants) has no docstring of its own
        if not _ours(obj):
            continue
        out.append((n, obj))
    return out


def _class_members(cls):
    out = []
    for n, raw in vars(cls).items():
        if n.startswith("_"):
            continue
        if isinstance(raw, (staticmethod, classmethod)):
            obj = raw.__func__
        else:
            obj = raw
        if isinstance(obj, type) or not (callable(obj) or isinstance(obj, (property, *_NATIVE_TYPES))):
            continue  # a class held as an attribute (`cls_to_become`) is data here
        if isinstance(obj, types.MemberDescriptorType) and not _native_class(cls):
            continue  # a `__slots__` / dataclass field: documented in its class's docstring
        out.append((n, obj))
    return sorted(out)


def namespace_names(ns):
    """Every public (name, object) of one namespace, re-exports included (for its page)."""
    target = _resolve(ns)
    if isinstance(target, type):
        return [(ns, target)]
    return [(f"{ns}.{n}", obj) for n, obj in _module_names(target)]


def public_api():
    """[(namespace, [entry])]: every public name once; entry = dict(name, kind, native, doc)."""
    seen = set()
    result = []
    classes = []

    def add(entries, qual, obj, kind, inherited):
        key = id(obj)
        if key in seen:
            return
        seen.add(key)
        entries.append(dict(name=qual, kind=kind, native=is_native(obj),
                            doc=has_doc(obj, inherited), example=has_example(obj)))
        if isinstance(obj, type):
            classes.append((qual, obj))

    # A class namespace (gradrs.Tensor) claims its class before the modules re-export it.
    order = sorted(NAMESPACES, key=lambda ns: not isinstance(_try_resolve(ns), type))
    for ns in order:
        try:
            target = _resolve(ns)
        except (ImportError, AttributeError):
            continue  # a namespace not (yet) in this build
        entries = []
        if isinstance(target, type):
            add(entries, ns, target, "class", False)
        else:
            for n, obj in _module_names(target):
                add(entries, f"{ns}.{n}", obj, "class" if isinstance(obj, type) else "function",
                    False)
        result.append((ns, entries))
    result.sort(key=lambda r: NAMESPACES.index(r[0]))
    # Methods after all namespaces, so a class is attributed to its first namespace.
    by_ns = dict(result)
    for qual, cls in classes:
        ns = next(n for n, es in result if any(e["name"] == qual for e in es))
        for n, obj in _class_members(cls):
            key = (id(cls), n)  # a shared function object is documented once per class
            if key in seen:
                continue
            seen.add(key)
            by_ns[ns].append(dict(name=f"{qual}.{n}", kind="method", native=is_native(obj),
                                  doc=has_doc(obj, True), example=has_example(obj)))
    return result


def summarize(api):
    counts = {}
    for _, entries in api:
        for e in entries:
            level = "member" if e["kind"] == "method" else "top"
            key = (level, "native" if e["native"] else "python")
            c = counts.setdefault(key, [0, 0, 0])
            c[0 if e["doc"] else 1] += 1
            c[2] += e["example"]
    return counts


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--missing", action="store_true", help="list every name without a docstring")
    ap.add_argument("--python-only", action="store_true", help="list only Python-defined names")
    ap.add_argument("--json", action="store_true", help="print counts and missing names as JSON")
    args = ap.parse_args(argv)
    api = public_api()
    counts = summarize(api)
    missing = [e for _, es in api for e in es if not e["doc"]
               and not (args.python_only and e["native"])]
    if args.json:
        print(json.dumps(dict(
            counts={f"{lv}/{src}": dict(with_doc=c[0], without=c[1], with_example=c[2])
                    for (lv, src), c in sorted(counts.items())},
            missing=[dict(name=e["name"], native=e["native"]) for e in missing]), indent=1))
        return 0
    print(f"{'names':<34}{'with docstring':>16}{'without':>10}{'with example':>14}")
    labels = {("top", "python"): "functions/classes, Python",
              ("top", "native"): "functions/classes, native",
              ("member", "python"): "methods/attributes, Python",
              ("member", "native"): "methods/attributes, native"}
    for key, label in labels.items():
        c = counts.get(key, [0, 0, 0])
        print(f"{label:<34}{c[0]:>16}{c[1]:>10}{c[2]:>14}")
    per_ns = [(ns, sum(not e["doc"] for e in es), len(es)) for ns, es in api]
    print("\nundocumented per namespace (of all its names):")
    for ns, miss, total in per_ns:
        print(f"  {ns:<34}{miss:>5} / {total}")
    if args.missing:
        print("\nwithout a docstring:")
        for e in missing:
            print(f"  {e['name']}{'  (native)' if e['native'] else ''}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
