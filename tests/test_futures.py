"""gradrs.futures (torch.futures): Future's completion, callbacks, chaining and errors,
collect_all / wait_all, compared with torch's on the same scenarios."""

import threading
import time

import pytest
from conftest import G


def outcome(f):
    try:
        return ("ok", f())
    except BaseException as e:  # noqa: BLE001 - compared with torch's
        return (type(e).__name__, str(e))


def scenarios(m):
    """What each scenario gives under module m (gradrs or torch): comparable values."""
    Future, collect_all, wait_all = m.futures.Future, m.futures.collect_all, m.futures.wait_all
    out = {}
    f = Future()
    out["fresh"] = f.done()
    f.set_result(5)
    out["value"] = (f.done(), f.value(), f.wait())
    out["twice"] = outcome(lambda: f.set_result(6))
    out["then"] = f.then(lambda x: x.value() + 1).wait()
    out["chain"] = f.then(lambda x: x.wait() * 2).then(lambda x: x.value() - 1).wait()
    order = []
    g = Future()
    c1 = g.then(lambda x: order.append("a") or x.value())
    g.add_done_callback(lambda x: order.append("b"))
    out["pending"] = (c1.done(), order[:])
    g.set_result(3)
    out["ran"] = (c1.wait(), sorted(order))
    bad = Future()
    child = bad.then(lambda x: 1 / 0)
    bad.set_result(1)
    err = outcome(child.wait)
    out["callback error"] = (err[0], err[1].split("\n")[0], child.done(), outcome(child.value)[0])
    h = Future()
    h.set_exception(ValueError("foo"))
    out["exception"] = (h.done(), outcome(h.wait), outcome(h.value))
    err = outcome(h.then(lambda x: x.value()).wait)
    out["then on exception"] = (err[0], err[1].split("\n")[0])
    out["then ignoring exception"] = h.then(lambda x: 7).wait()
    out["set_exception twice"] = outcome(lambda: h.set_exception(ValueError("x")))
    out["set_exception non exception"] = outcome(lambda: Future().set_exception(5))
    out["positional"] = outcome(lambda: Future(1))[0]
    out["device without index"] = outcome(lambda: Future(devices=["cpu"]))
    a, b = Future(), Future()
    both = collect_all([a, b])
    states = [both.done()]
    a.set_result(1)
    states.append(both.done())
    b.set_result(2)
    states.append(both.done())
    out["collect_all"] = (states, [x.value() for x in both.wait()])
    out["collect_all error"] = outcome(lambda: collect_all([f, h]).wait())
    out["wait_all"] = wait_all([f, a, b])
    out["wait_all error"] = outcome(lambda: wait_all([f, h]))
    out["then not callable"] = outcome(lambda: Future().then(5))[0]
    out["set_result None"] = (lambda z: (z.set_result(None), z.value()))(Future())
    out["add_done_callback completed"] = (lambda z, seen: (
        z.set_result(9), z.add_done_callback(lambda x: seen.append(x.value())), seen))(
        Future(), [])[2]
    return out


def test_futures_as_torch(torch):
    ours, theirs = scenarios(G), scenarios(torch)
    assert ours.keys() == theirs.keys()
    for k in ours:
        assert ours[k] == theirs[k], k


def test_callback_error_message_and_value_before_completion():
    f = G.futures.Future()
    c = f.then(lambda x: {}["missing"])
    f.set_result(1)
    with pytest.raises(RuntimeError) as e:
        c.wait()
    head, at = str(e.value).split("\n\nAt:\n")
    assert head == "Got the following error when running the callback: KeyError: 'missing'"
    assert "test_futures.py(" in at and "<lambda>" in at
    with pytest.raises(RuntimeError):
        G.futures.Future().value()


def test_wait_blocks_until_another_thread_completes():
    f = G.futures.Future()
    seen = []
    chained = f.then(lambda x: seen.append(threading.current_thread().name) or x.value() * 2)

    def later():
        time.sleep(0.05)
        f.set_result(21)

    t = threading.Thread(target=later, name="completer")
    t.start()
    assert chained.wait() == 42 and f.wait() == 21
    t.join()
    assert seen == ["completer"]  # the callback ran on the thread that completed the future
    assert G.futures.collect_all([]).wait() == [] and G.futures.wait_all([]) == []


def test_module_as_torch(torch):
    assert G.futures.__all__ == torch.futures.__all__
    import inspect

    for name in ("done", "wait", "value", "then", "add_done_callback", "set_result",
                 "set_exception"):
        ours = inspect.signature(getattr(G.futures.Future, name))
        theirs = inspect.signature(getattr(torch.futures.Future, name))
        assert list(ours.parameters) == list(theirs.parameters), name
