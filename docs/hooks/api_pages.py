"""MkDocs hook: writes the API reference pages (api/*.md) at build time, one per namespace.

The names come from tools/doc_coverage.py (`public_api`, the same list the coverage numbers
count), so the reference never lags the package. Each name griffe finds statically in
python/ (the `.py` sources and `_native.pyi`) is rendered by mkdocstrings (`::: name`);
a name defined at run time (set on a class or module by code) is rendered here from
`inspect.signature` and its `__doc__`. Needs gradrs importable (it is, in the docs extra's
environment: `pip install ".[docs]"`).
"""

import html
import importlib.util
import inspect
import os

from mkdocs.structure.files import File

_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
_STATE = {}


def _coverage():
    spec = importlib.util.spec_from_file_location(
        "doc_coverage", os.path.join(_ROOT, "tools", "doc_coverage.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _griffe_package():
    import griffe

    loader = griffe.GriffeLoader(search_paths=[os.path.join(_ROOT, "python")],
                                 allow_inspection=False)
    pkg = loader.load("gradrs")
    loader.resolve_aliases(implicit=True, external=False)
    return pkg


def _static(pkg, qualname):
    """Whether mkdocstrings can collect `qualname` from the sources."""
    try:
        obj = pkg[qualname.split(".", 1)[1]] if "." in qualname else pkg
        if obj.is_alias:
            obj = obj.final_target
        return obj is not None
    except Exception:  # noqa: BLE001  (griffe raises several kinds for unresolvable names)
        return False


def _page_name(ns):
    return f"api/{ns}.md"


def _runtime_entry(qualname):
    """Markdown for a name griffe cannot see statically: its signature and docstring."""
    mod_path, _, attr = qualname.rpartition(".")
    try:
        parent = _STATE["cov"]._resolve(mod_path)
    except Exception:  # noqa: BLE001
        parent = None
    obj = getattr(parent, attr, None)
    try:
        sig = str(inspect.signature(obj))
    except (TypeError, ValueError):
        sig = "(...)" if callable(obj) else ""
    doc = inspect.getdoc(obj) if obj is not None else None
    body = html.escape(doc) if doc else "<em>No docstring.</em>"
    anchor = qualname.replace(".", "-")
    return (f'### `{qualname}` {{ #{anchor} }}\n\n```python\n{attr}{sig}\n```\n\n'
            f'<pre class="gradrs-doc">{body}</pre>\n')


def _namespace_page(ns, entries, pkg):
    lines = [f"# `{ns}`\n"]
    if _static(pkg, ns):
        lines.append(f"::: {ns}\n    options:\n      members: false\n      show_root_heading: false\n")
    # Every name of the namespace, also those counted under an earlier one (F.conv1d is
    # gradrs.conv1d): a page lists all that its module offers.
    cov = _STATE["cov"]
    tops = [dict(name=q, doc=cov.has_doc(o, False)) for q, o in cov.namespace_names(ns)]
    is_class_page = len(tops) == 1 and tops[0]["name"] == ns
    if is_class_page:
        # The class's own directive renders its members.
        lines[-1] = f"::: {ns}\n    options:\n      show_root_heading: false\n"
        return "\n".join(lines)
    undoc = sum(not e["doc"] for e in tops)
    lines.append(f"{len(tops)} public names ({undoc} without a docstring yet).\n")
    for e in tops:
        if _static(pkg, e["name"]):
            lines.append(f"::: {e['name']}\n")
        else:
            lines.append(_runtime_entry(e["name"]))
    return "\n".join(lines)


def _index_page(api, counts):
    lines = ["# API reference\n",
             "One page per namespace, in the order PyTorch users reach them. Generated at build "
             "time from the package itself (`tools/doc_coverage.py` lists the public names; "
             "`docs/hooks/api_pages.py` writes these pages).\n",
             "| namespace | functions and classes | without a docstring |", "|---|---:|---:|"]
    cov = _STATE["cov"]
    for ns, _ in api:
        names = cov.namespace_names(ns)
        miss = sum(not cov.has_doc(o, False) for _, o in names)
        lines.append(f"| [`{ns}`]({ns}.md) | {len(names)} | {miss} |")
    lines.append("\nDocstring coverage (`python tools/doc_coverage.py`; native names are those "
                 "defined in Rust, in `gradrs._native`):\n")
    lines += ["| names | with a docstring | without | with a runnable example |",
              "|---|---:|---:|---:|"]
    labels = {("top", "python"): "functions and classes, Python",
              ("top", "native"): "functions and classes, native",
              ("member", "python"): "methods and attributes, Python",
              ("member", "native"): "methods and attributes, native"}
    for key, label in labels.items():
        c = counts.get(key, [0, 0, 0])
        lines.append(f"| {label} | {c[0]} | {c[1]} | {c[2]} |")
    return "\n".join(lines) + "\n"


def on_config(config):
    cov = _coverage()
    api = [(ns, es) for ns, es in cov.public_api() if cov.namespace_names(ns)]
    _STATE.update(cov=cov, api=api, counts=cov.summarize(api), pkg=_griffe_package())
    for item in config["nav"]:
        if isinstance(item, dict) and "API reference" in item:
            item["API reference"] = ["api/index.md"] + [{ns: _page_name(ns)} for ns, _ in api]
    return config


def on_files(files, config):
    pkg = _STATE["pkg"]
    files.append(File.generated(config, "api/index.md",
                                content=_index_page(_STATE["api"], _STATE["counts"])))
    for ns, entries in _STATE["api"]:
        files.append(File.generated(config, _page_name(ns),
                                    content=_namespace_page(ns, entries, pkg)))
    return files
