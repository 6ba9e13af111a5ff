"""What `__torch_function__` receives as `args` and `kwargs` (and, for PyTorch's pooling
functions with `return_indices`, as `func`): a function PyTorch writes in Python passes its
parameters as its own `handle_torch_function` call does, one it binds in C passes the call as
given. The dispatch of `_torch_function` calls `_kind` on each call it dispatches (only
then: a plain call never reaches this module). Note [Torch function dispatch] in
`_torch_function.py`."""

# nn.functional's functions PyTorch binds in C (torch._C._nn's, reported as `torch.nn.<name>`,
# and torch's own, reported as `torch.<name>`): their calls are passed on as given, as the
# other C-bound functions' (`kwargs` None without keywords). tests/test_torch_function.py
# checks this list against torch.
C_BOUND_FUNCTIONAL = {
    **dict.fromkeys("""
        avg_pool2d avg_pool3d elu_ gelu hardtanh_ leaky_relu_ linear logsigmoid one_hot
        scaled_dot_product_attention softplus softshrink""".split(), "gradrs.nn."),
    **dict.fromkeys("""
        adaptive_avg_pool1d avg_pool1d bilinear celu_ channel_shuffle conv1d conv2d conv3d
        conv_tbc conv_transpose1d conv_transpose2d conv_transpose3d cosine_similarity
        hardshrink native_channel_shuffle pairwise_distance pdist pixel_shuffle pixel_unshuffle
        prelu relu_ rrelu_ selu_ threshold_""".split(), "gradrs."),
}
# public function -> how PyTorch writes it, where gradrs's check says otherwise: the name a
# C-bound function's refusal reports, or "" for one written in Python (filled by wrap_module)
_KINDS = {}
# public function -> the module PyTorch's error names (torch.functional's, re-exported as
# `gradrs.split`)
_MODULES = {}
_WITH_INDICES = {}  # F.max_pool2d -> F.max_pool2d_with_indices, & co.
_AS_GIVEN = object()  # in _KINDS: written in Python, passing on `*args, **kwargs` as given
_BINDINGS = {}  # function -> its signature (None: none), for `_bind`
# Defaults PyTorch's signature writes otherwise (`norm`'s p='fro', which gradrs reads as None)
_SIGNATURE_DEFAULTS = {"norm": {"p": "fro"}}
# Where PyTorch's `handle_torch_function` call departs from its own rule: only these
# parameters go by keyword (a required one too), the others with defaults are left out
_KEYWORDS_PASSED = {"unravel_index": ("shape",), "chain_matmul": (), "__array__": ("dtype",)}


def _kind(public_api, args, kwargs, native_name, python):
    """(func, args, kwargs, native_name, python) of a call about to be dispatched: a function
    PyTorch writes in Python passes its arguments as its `handle_torch_function` call does
    (`_bind`), a C-bound one as given (`kwargs` None without keywords). PyTorch's pooling
    functions with `return_indices` are two (`boolean_dispatch`): with `return_indices=True`
    the call is `max_pool2d_with_indices`'s."""
    try:
        kind = _KINDS.get(public_api)
    except TypeError:  # unhashable
        kind = None
    if kind is not None and kind is not _AS_GIVEN:
        python = not kind
        native_name = kind or None
    if not python:
        return public_api, args, kwargs or None, native_name, False
    if native_name is not None or kind is _AS_GIVEN:  # a property, or `*args, **kwargs`
        return public_api, args, kwargs, native_name, True
    args, kwargs = _bind(public_api, args, kwargs)
    if kind is not None and kwargs.get("return_indices") is True:
        public_api = _WITH_INDICES.get(public_api, public_api)
    return public_api, args, kwargs, None, True


def _bind(fn, args, kwargs):
    """The arguments as PyTorch's Python functions pass them to `handle_torch_function`
    (`handle_torch_function(relu, (input,), input, inplace=inplace)`): the parameters without
    a default by position, every other one by keyword with its value or its default, in the
    signature's order (`F.relu(x)` arrives with `kwargs={'inplace': False}`)."""
    try:
        plan = _BINDINGS[fn]
    except KeyError:
        plan = _BINDINGS[fn] = _binding(fn)
    except TypeError:  # unhashable
        return args, kwargs or {}
    if plan is None:
        return args, kwargs or {}
    params, positional, keywords, steps, nreq, defaults = plan
    if defaults is not None and nreq <= len(args) <= len(positional) and (
            not kwargs or keywords.issuperset(kwargs)
            and frozenset(positional[:len(args)]).isdisjoint(kwargs)):
        # the usual call: the required parameters by position, the rest by keyword
        kw = dict(defaults)
        if len(args) > nreq:
            kw.update(zip(positional[nreq:], args[nreq:]))
        if kwargs:
            kw.update(kwargs)
        return args[:nreq], kw
    if params is None:  # the plain case, bound here (Signature.bind takes microseconds)
        if len(args) > len(positional) or (kwargs and not keywords.issuperset(kwargs)):
            return args, kwargs or {}  # the call itself fails: the function raises
        values = dict(zip(positional, args))
        if kwargs:
            for k, v in kwargs.items():
                if k in values:
                    return args, kwargs
                values[k] = v
        pos, kw = [], {}
        for name, default, by_position in steps:
            v = values.get(name, default)
            if v is _MISSING:
                return args, kwargs or {}
            if by_position:
                pos.append(v)
            elif by_position is False:
                kw[name] = v
        return tuple(pos), kw
    try:
        bound = params.bind(*args, **(kwargs or {}))
    except TypeError:  # the call itself fails: passed on as given, the function raises
        return args, kwargs or {}
    bound.apply_defaults()
    values = bound.arguments
    pos, kw = [], {}
    for name, p in params.parameters.items():
        v = values[name]
        if p.kind is p.VAR_POSITIONAL:
            pos.extend(v)
        elif p.kind is p.VAR_KEYWORD:
            kw.update(v)
        elif _by_position(name, p, fn) is True:
            pos.append(v)
        elif _by_position(name, p, fn) is False:
            kw[name] = v
    return tuple(pos), kw


_MISSING = object()


def _by_position(name, p, fn):
    """True: passed by position, False: by keyword, None: left out (`_KEYWORDS_PASSED`, and
    gradrs's own private keyword-only parameters such as `_with_indices`)."""
    passed = _KEYWORDS_PASSED.get(getattr(fn, "__name__", None))
    if passed is not None:
        return False if name in passed else True if p.default is p.empty else None
    if p.kind is p.KEYWORD_ONLY and name.startswith("_"):
        return None
    return p.kind is p.POSITIONAL_ONLY or (p.default is p.empty
                                           and p.kind is p.POSITIONAL_OR_KEYWORD)


def _binding(fn):
    """`fn`'s signature for `_bind`, None without one: (None, positional names, keyword
    names, [(name, default or _MISSING, by position)]) for a signature without `*args` /
    `**kwargs`, else (signature, ...)."""
    import inspect

    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return None
    defaults = _SIGNATURE_DEFAULTS.get(getattr(fn, "__name__", None))
    if defaults:
        sig = sig.replace(parameters=[
            p.replace(default=defaults[p.name]) if p.name in defaults else p
            for p in sig.parameters.values()])
    params = list(sig.parameters.values())
    if any(p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) for p in params):
        return sig, (), frozenset(), None, 0, None
    positional = tuple(p.name for p in params if p.kind in (p.POSITIONAL_ONLY,
                                                            p.POSITIONAL_OR_KEYWORD))
    keywords = frozenset(p.name for p in params if p.kind is not p.POSITIONAL_ONLY)
    steps = [(p.name, _MISSING if p.default is p.empty else p.default,
              _by_position(p.name, p, fn)) for p in params]
    # the usual signature: required positional parameters first, passed by position, every
    # other one by keyword (a dict of the defaults, in order, to update)
    nreq = sum(1 for _, _, by_position in steps if by_position)
    usual = all(by_position is (i < nreq) for i, (_, _, by_position) in enumerate(steps)) and all(
        default is _MISSING for _, default, _ in steps[:nreq]) and all(
        default is not _MISSING for _, default, _ in steps[nreq:]) and all(
        p.kind is not p.POSITIONAL_ONLY for p in params[nreq:])
    defaults = {name: default for name, default, _ in steps[nreq:]} if usual else None
    return None, positional, keywords, steps, nreq, defaults
