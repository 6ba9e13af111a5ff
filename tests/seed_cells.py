"""Every code cell of the three seed documents, as data (used by ``test_seeds.py``).

The seeds (``/work/shared/seeds``): ``000`` is a markdown page (```python fences), ``001`` a
notebook dump (``In [n]:`` cells followed by their output), ``002`` an article (``` blocks,
some IPython sessions, some code, some output or error text). Output, error text and prose
are not cells; every piece of code is, in document order.

``source`` is what runs, stored literally. It is the seed's code, except that

* lines above a ``# --- seed cell ---`` line are setup added in front (``import torch`` for
  pages that import it once, names defined by earlier cells, ...): each cell runs alone, in a
  fresh namespace;
* lines below a ``# --- end of seed cell ---`` line are appended (a ``print`` where the cell
  shows random or uninitialized values, or a check of what the cell demonstrates);
* ``fixes`` lists ``(seed_text, fixed_text)`` replacements made where the seed is broken in
  current PyTorch or relies on notebook display (a trailing expression becomes
  ``print(repr(...))``), or where a cell shows an error (it is caught and printed as
  ``type(e).__name__: str(e)``).

``note`` says why. ``SeedCell.seed_text()`` undoes all of it, and the test checks that the
result is in the seed document. ``compare``: ``"stdout"`` (exact output), ``"error"`` (the
cell prints a caught error; exact output), ``"shapes"`` (the cell prints shapes/dtypes instead
of random or uninitialized values; floats are also normalized away). ``expected`` is the
normalized output of PyTorch 2.13 (CPU), the reference when torch is not installed.
"""

from __future__ import annotations

from dataclasses import dataclass

SEED_DOCS = {
    "000": "000_055a5e0817758c18.txt",
    "001": "001_db4808a3fe4f499d.txt",
    "002": "002_240437ffb10e9e85.txt",
}

SETUP_END = "# --- seed cell ---"
APPENDED_BEGIN = "# --- end of seed cell ---"


@dataclass(frozen=True)
class SeedCell:
    doc: str  # "000", "001" or "002"
    index: int  # position of the cell in its document, from 0
    title: str
    source: str
    compare: str = "stdout"  # "stdout" | "shapes" | "error"
    note: str = ""
    fixes: tuple[tuple[str, str], ...] = ()  # (seed_text, fixed_text)
    expected: str | None = None

    @property
    def id(self) -> str:
        return f"{self.doc}-{self.index:02d}-{self.title}"

    def seed_text(self) -> str:
        """The cell as the seed writes it: setup and appended lines dropped, fixes undone."""
        lines = self.source.split("\n")
        if SETUP_END in lines:
            lines = lines[lines.index(SETUP_END) + 1 :]
        if APPENDED_BEGIN in lines:
            lines = lines[: lines.index(APPENDED_BEGIN)]
        text = "\n".join(lines)
        for seed_text, fixed_text in reversed(self.fixes):
            count = text.count(fixed_text)
            assert count == 1, f"{self.id}: fix {fixed_text!r} occurs {count} times"
            text = text.replace(fixed_text, seed_text)
        return text


CELLS = [
    SeedCell(
        doc="000",
        index=0,
        title="import_torch",
        compare="stdout",
        note="verbatim",
        source="import torch\n",
        expected="",
    ),
    SeedCell(
        doc="000",
        index=1,
        title="dcg_mul",
        compare="stdout",
        note=(
            "setup `import torch` added (the page imports torch once, in cell 000-00); prints "
            "nothing"
        ),
        source=r"""import torch
# --- seed cell ---
x = torch.tensor(1.0)
y = torch.tensor(2.0)
z = x * y
""",
        expected="",
    ),
    SeedCell(
        doc="000",
        index=2,
        title="set_requires_grad",
        compare="stdout",
        note=(
            "tiny snippet: setup `import torch` + `x = torch.tensor(1.0)` (x as defined in cell "
            "000-01) added in front so it runs; prints nothing"
        ),
        source=r"""import torch
x = torch.tensor(1.0)
# --- seed cell ---
x.requires_grad = True
""",
        expected="",
    ),
    SeedCell(
        doc="000",
        index=3,
        title="requires_grad_",
        compare="stdout",
        note=(
            "setup `import torch` added (the page imports torch once, in cell 000-00); uses randn"
            " but the printed flags do not depend on the values"
        ),
        source=r"""import torch
# --- seed cell ---
a = torch.randn(2, 2)
a = ((a * 3) / (a - 1))
print(a.requires_grad) # should be False if we haven't specified

# Now we set requires_grad to True explicitly
a.requires_grad_(True)
print(a.requires_grad) # Now is true
""",
        expected=r"""False
True
""",
    ),
    SeedCell(
        doc="000",
        index=4,
        title="mul_grad_fn",
        compare="stdout",
        note=(
            "undefined name `a`: setup `import torch` + the three `a = ...` lines of cell 000-03 "
            "added in front; randn values do not show in the grad_fn repr, address normalized"
        ),
        source=r"""import torch
a = torch.randn(2, 2)
a = ((a * 3) / (a - 1))
a.requires_grad_(True)
# --- seed cell ---
b = a * a
print(b.grad_fn)
""",
        expected="<MulBackward0 object at 0xADDR>\n",
    ),
    SeedCell(
        doc="000",
        index=5,
        title="leaf_tensor",
        compare="stdout",
        note=(
            "setup `import torch` added (the page imports torch once, in cell 000-00); prints "
            "nothing"
        ),
        source=r"""import torch
# --- seed cell ---
x = torch.tensor(1.0)
""",
        expected="",
    ),
    SeedCell(
        doc="000",
        index=6,
        title="no_grad_block",
        compare="stdout",
        note=(
            "the `with` block has only a comment (SyntaxError: expected an indented block): added"
            " the body `b = a * 2`, with setup `a = torch.ones(2, requires_grad=True)` in front "
            "and `print(b.requires_grad, b.grad_fn)` after it to show that no graph is recorded"
        ),
        fixes=(
            (
                "  # operations that do not need gradient tracking",
                "  # operations that do not need gradient tracking\n  b = a * 2",
            ),
        ),
        source=r"""import torch
a = torch.ones(2, requires_grad=True)
# --- seed cell ---
with torch.no_grad():
  # operations that do not need gradient tracking
  b = a * 2
# --- end of seed cell ---
print(b.requires_grad, b.grad_fn)
""",
        expected="False None\n",
    ),
    SeedCell(
        doc="000",
        index=7,
        title="tensor_ctor_backward",
        compare="stdout",
        note=(
            "setup `import torch` added (the page imports torch once, in cell 000-00); original "
            "`x = torch.Tensor(1.0, requires_grad=True)` and `y = torch.Tensor(2.0)` fail in "
            "PyTorch (TypeError: new(): data must be a sequence (got float)); the legacy "
            "`torch.Tensor` constructor takes sizes or sequences, so both use `torch.tensor`; "
            "prints nothing"
        ),
        fixes=(
            ("torch.Tensor(1.0, requires_grad=True)", "torch.tensor(1.0, requires_grad=True)"),
            ("torch.Tensor(2.0)", "torch.tensor(2.0)"),
        ),
        source=r"""import torch
# --- seed cell ---
x = torch.tensor(1.0, requires_grad=True)
y = torch.tensor(2.0)
z = x * y

z.backward()
""",
        expected="",
    ),
    SeedCell(
        doc="000",
        index=8,
        title="scalar_backward",
        compare="stdout",
        note="setup `import torch` added (the page imports torch once, in cell 000-00)",
        source=r"""import torch
# --- seed cell ---
a = torch.tensor(1.0, requires_grad=True) # a is a scalar
b = a + 2
c = a * b # c is also a scalar

c.backward()
print(a.grad)
""",
        expected="tensor(4.)\n",
    ),
    SeedCell(
        doc="000",
        index=9,
        title="vector_output",
        compare="stdout",
        note="setup `import torch` added (the page imports torch once, in cell 000-00)",
        source=r"""import torch
# --- seed cell ---
x = torch.ones(3, requires_grad=True)

def f(x):
  y = x * 2
  z = y * y * 2
  return z

print(f"f(x): {f(x)}") # f(x) is a vector, not a scalar
""",
        expected="f(x): tensor([8., 8., 8.], grad_fn=<MulBackward0>)\n",
    ),
    SeedCell(
        doc="000",
        index=10,
        title="vjp_backward",
        compare="stdout",
        note=(
            "undefined names `x`, `f`: setup `import torch` + `x` and `def f` of cell 000-09 "
            "added in front"
        ),
        source=r"""import torch
x = torch.ones(3, requires_grad=True)

def f(x):
  y = x * 2
  z = y * y * 2
  return z

# --- seed cell ---
v = torch.tensor([1, 2, 3], dtype=torch.float)
f(x).backward(v, retain_graph=True)
# alternatively we can call static backward in autograd package as following:
# torch.autograd.backward(z, grad_tensors=v, retain_graph=True)

print(f"gradint of x: {x.grad}")
""",
        expected="gradint of x: tensor([16., 32., 48.])\n",
    ),
    SeedCell(
        doc="000",
        index=11,
        title="grad_zero_unit_vector",
        compare="stdout",
        note=(
            "undefined names `x`, `f` and `x.grad` is None on a fresh x: setup `import torch` + "
            "`x`, `def f` (cell 000-09) and the backward with v (cell 000-10) added in front"
        ),
        source=r"""import torch
x = torch.ones(3, requires_grad=True)

def f(x):
  y = x * 2
  z = y * y * 2
  return z

v = torch.tensor([1, 2, 3], dtype=torch.float)
f(x).backward(v, retain_graph=True)
# --- seed cell ---
x.grad.zero_() # clear previous gradient otherwise it will get accumulated
unit_tensor = torch.ones(3, dtype=torch.float)
f(x).backward(unit_tensor, retain_graph=True)
print(f"gradint of x: {x.grad}")
""",
        expected="gradint of x: tensor([16., 16., 16.])\n",
    ),
    SeedCell(
        doc="001",
        index=0,
        title="graph_attributes",
        compare="stdout",
        note=(
            "verbatim (In [1]); an f-string formats a 0-dim tensor as its item, hence `data: "
            "1.0`; grad_fn address normalized"
        ),
        source=r"""# https://towardsdatascience.com/pytorch-autograd-understanding-the-heart-of-pytorchs-magic-2686cd94ec95
import torch

# Creating the graph
x = torch.tensor(1.0, requires_grad = True)
y = torch.tensor(2.0)
z = x * y

# Displaying
for i, name in zip([x, y, z], "xyz"):
    print(f"{name}\ndata: {i.data}\nrequires_grad: {i.requires_grad}\n\
grad: {i.grad}\ngrad_fn: {i.grad_fn}\nis_leaf: {i.is_leaf}\n")
""",
        expected=r"""x
data: 1.0
requires_grad: True
grad: None
grad_fn: None
is_leaf: True

y
data: 2.0
requires_grad: False
grad: None
grad_fn: None
is_leaf: True

z
data: 2.0
requires_grad: True
grad: None
grad_fn: <MulBackward0 object at 0xADDR>
is_leaf: False

""",
    ),
    SeedCell(
        doc="001",
        index=1,
        title="cube_backward",
        compare="stdout",
        note="verbatim (In [2])",
        source=r"""import torch
# Creating the graph
x = torch.tensor(1.0, requires_grad = True)
z = x ** 3
z.backward()        # Computes the gradient
print(x.grad.data)  # Prints '3' which is dz/dx
""",
        expected="tensor(3.)\n",
    ),
    SeedCell(
        doc="001",
        index=2,
        title="weighted_backward",
        compare="stdout",
        note="trailing expression `x.grad` (displayed by the notebook) -> `print(repr(x.grad))`",
        fixes=(("x.grad", "print(repr(x.grad))"),),
        source=r"""import torch

x = torch.tensor([1.0, 2.0], requires_grad=True)
y = x**2

y.backward(torch.FloatTensor([1.0, 1.0])) # the tensor provide to .backward acts as a weight
print(repr(x.grad))
""",
        expected="tensor([2., 4.])\n",
    ),
    SeedCell(
        doc="001",
        index=3,
        title="weighted_backward_w",
        compare="stdout",
        note="trailing expression `x.grad` (displayed by the notebook) -> `print(repr(x.grad))`",
        fixes=(("x.grad                    # notice", "print(repr(x.grad))       # notice"),),
        source=r"""# another way to put it would be
import torch

x = torch.tensor([1.0, 2.0], requires_grad=True)
y = x**2

#
w = torch.FloatTensor([1.0, 1.0])
y.backward(w)             # the tensor provide to .backward acts as a weight
print(repr(x.grad))       # notice that we do not provide backward(x)
""",
        expected="tensor([2., 4.])\n",
    ),
    SeedCell(
        doc="001",
        index=4,
        title="backward_with_x",
        compare="stdout",
        note=(
            "trailing expression `x.grad` (displayed by the notebook; only comments follow) -> "
            "`print(repr(x.grad))`"
        ),
        fixes=(("x.grad\n", "print(repr(x.grad))\n"),),
        source=r"""# This will happen if we provide x as argument of .backward()
import torch

x = torch.tensor([1.0, 2.0], requires_grad=True)
y = x**2

w = torch.FloatTensor([1.0, 1.0])

y.backward(x)             # the tensor provide to .backward acts as the weights
print(repr(x.grad))
# out: tensor([2., 8.])   # x as an argument outputs the wrong derivatives
""",
        expected="tensor([2., 8.])\n",
    ),
    SeedCell(
        doc="001",
        index=5,
        title="nonleaf_grad_none",
        compare="stdout",
        note=(
            "verbatim; `y.grad` of a non-leaf prints None (PyTorch also warns on stderr, which is"
            " not compared)"
        ),
        source=r"""import torch

x = torch.tensor([1.0, 2.0], requires_grad=True)
y = x**2
z = y**3

w = torch.FloatTensor([1.0, 1.0])

#y.backward(w, retain_graph=True)             # the tensor provide to .backward acts as the weights
#print(x.grad)

z.backward(w, retain_graph=True)
print(y.grad)
print(x.grad)

z.backward(w, retain_graph=True)
print(y.grad)
print(x.grad)

# why y is None?
""",
        expected=r"""None
tensor([  6., 192.])
None
tensor([ 12., 384.])
""",
    ),
    SeedCell(
        doc="001",
        index=6,
        title="grad_accumulates",
        compare="stdout",
        note="verbatim",
        source=r"""# https://www.javatpoint.com/gradient-with-pytorch
import torch

x = torch.tensor([2.0, 2.0], requires_grad=True) # independent variable
z = torch.tensor([4.0, 4.0], requires_grad=True) # independent variable

y = x**2 + z**3
# Its partial derivatives are:
#    dy/dx = 2x;
#    dy/dz = 3z^2;

w = torch.FloatTensor([1.0, 1.0])  # weights

y.backward(w, retain_graph=True)
print(x.grad)
print(z.grad)

y.backward(w, retain_graph=True)
print(x.grad)
print(z.grad)

y.backward(w, retain_graph=True)
print(x.grad)
print(z.grad)

# at every pass, the derivative is accumulated
# there is no second derivative calculated
""",
        expected=r"""tensor([4., 4.])
tensor([48., 48.])
tensor([8., 8.])
tensor([96., 96.])
tensor([12., 12.])
tensor([144., 144.])
""",
    ),
    SeedCell(
        doc="001",
        index=7,
        title="second_backward_error",
        compare="stdout",
        note="verbatim; the cell itself catches the RuntimeError of the second backward",
        source=r"""# https://www.javatpoint.com/gradient-with-pytorch
import torch

x = torch.tensor([2.0, 2.0], requires_grad=True) # independent variable
z = torch.tensor([4.0, 4.0], requires_grad=True) # independent variable

y = x**2 + z**3
# dy/dx = 2x;
# dy/dz = 3z^2;


w = torch.FloatTensor([1.0, 1.0])  # weights

y.backward(w)
print(x.grad)
print(z.grad)

try:
   y.backward(w)
   print(x.grad)
   print(z.grad)
except RuntimeError:
   print("Trying backward a second time when buffers are empty")

try:
    y.backward(w)
except RuntimeError:
    print("Trying backward a second time when buffers are empty")
else:
    print(x.grad)
    print(z.grad)

# at every pass, the derivative is accumulated
# there is no second derivative calculated
""",
        expected=r"""tensor([4., 4.])
tensor([48., 48.])
Trying backward a second time when buffers are empty
Trying backward a second time when buffers are empty
""",
    ),
    SeedCell(
        doc="001",
        index=8,
        title="variable_per_element",
        compare="stdout",
        note="verbatim; needs `from torch.autograd import Variable`",
        source=r"""# https://stackoverflow.com/a/47026836/5270873
from torch.autograd import Variable
import torch

x = Variable(torch.FloatTensor([[1, 2, 3, 4]]), requires_grad=True)
z = 2*x
loss = z.sum(dim=1) # scalar


# do backward for first element of z
z.backward(torch.FloatTensor([[1, 0, 0, 0]]), retain_graph=True)
print(x.grad.data)
x.grad.data.zero_() #remove gradient in x.grad, or it will be accumulated



# do backward for second element of z
z.backward(torch.FloatTensor([[0, 1, 0, 0]]), retain_graph=True)
print(x.grad.data)
x.grad.data.zero_()


# do backward for all elements of z, with weight equal to the derivative of
# loss w.r.t z_1, z_2, z_3 and z_4
z.backward(torch.FloatTensor([[1, 1, 1, 1]]), retain_graph=True)
print(x.grad.data)
x.grad.data.zero_()



# or we can directly backprop using loss
loss.backward() # equivalent to loss.backward(torch.FloatTensor([1.0]))
print(x.grad.data)
""",
        expected=r"""tensor([[2., 0., 0., 0.]])
tensor([[0., 2., 0., 0.]])
tensor([[2., 2., 2., 2.]])
tensor([[2., 2., 2., 2.]])
""",
    ),
    SeedCell(
        doc="002",
        index=0,
        title="tensor_uninitialized",
        compare="shapes",
        note=(
            "IPython session: `In [n]: ` prompts removed; `In [3]: tsr` displays uninitialized "
            "memory, so it prints `tsr.shape, tsr.dtype` instead"
        ),
        fixes=(
            ("In [1]: import torch", "import torch"),
            ("In [2]: tsr = ", "tsr = "),
            ("In [3]: tsr", "print(tsr.shape, tsr.dtype)"),
        ),
        source=r"""import torch
tsr = torch.Tensor(3,5)
print(tsr.shape, tsr.dtype)
""",
        expected="torch.Size([3, 5]) torch.float32\n",
    ),
    SeedCell(
        doc="002",
        index=1,
        title="randn_floattensor",
        compare="shapes",
        note=(
            "`>> ` prompts removed, setup `import torch` added; random/uninitialized values, so a"
            " `print` of shapes, dtype and requires_grad is appended"
        ),
        fixes=(
            (">> t1 = ", "t1 = "),
            (">> t2 = ", "t2 = "),
            (">> t2.req", "t2.req"),
        ),
        source=r"""import torch
# --- seed cell ---
t1 = torch.randn((3,3), requires_grad = True)
t2 = torch.FloatTensor(3,3) # No way to specify requires_grad while initiating
t2.requires_grad = True
# --- end of seed cell ---
print(t1.shape, t1.requires_grad, t2.shape, t2.dtype, t2.requires_grad)
""",
        expected=r"""torch.Size([3, 3]) True torch.Size([3, 3]) torch.float32 True
""",
    ),
    SeedCell(
        doc="002",
        index=2,
        title="grad_fn_none_and_add",
        compare="stdout",
        note="verbatim; randn values do not show in the output, grad_fn address normalized",
        source=r"""import torch
a = torch.randn((3,3), requires_grad = True)
w1 = torch.randn((3,3), requires_grad = True)
w2 = torch.randn((3,3), requires_grad = True)
w3 = torch.randn((3,3), requires_grad = True)
w4 = torch.randn((3,3), requires_grad = True)
b = w1*a
c = w2*a
d = w3*b + w4*c
L = 10 - d
print("The grad fn for a is", a.grad_fn)
print("The grad fn for d is", d.grad_fn)
""",
        expected=r"""The grad fn for a is None
The grad fn for d is <AddBackward0 object at 0xADDR>
""",
    ),
    SeedCell(
        doc="002",
        index=3,
        title="backward_pseudocode",
        compare="stdout",
        note=(
            "representative pseudo-code: indentation restored (lost in the article), `//` line "
            "continuation -> `\\`; the function is only defined (calling it needs `self`, "
            "`local_grad`), so it prints nothing"
        ),
        fixes=(("new_incoming_gradients = //", "new_incoming_gradients = \\"),),
        source=r"""def backward (incoming_gradients):
    self.Tensor.grad = incoming_gradients
    for inp in self.inputs:
        if inp.grad_fn is not None:
            new_incoming_gradients = \
            incoming_gradient * local_grad(self.Tensor, inp)
            inp.grad_fn.backward(new_incoming_gradients)
        else:
            pass
""",
        expected="",
    ),
    SeedCell(
        doc="002",
        index=4,
        title="nonscalar_backward_error",
        compare="error",
        note=(
            "meant to show the error: `L.backward()` on a 3x3 tensor is wrapped in try/except "
            "printing `type(e).__name__: str(e)` (the article shows `RuntimeError: grad can be "
            "implicitly created only for scalar outputs`)"
        ),
        fixes=(
            (
                "L.backward()",
                (
                    "try:\n"
                    "    L.backward()\n"
                    "except Exception as e:\n"
                    '    print(type(e).__name__ + ": " + str(e))'
                ),
            ),
        ),
        source=r"""import torch
a = torch.randn((3,3), requires_grad = True)
w1 = torch.randn((3,3), requires_grad = True)
w2 = torch.randn((3,3), requires_grad = True)
w3 = torch.randn((3,3), requires_grad = True)
w4 = torch.randn((3,3), requires_grad = True)
b = w1*a
c = w2*a
d = w3*b + w4*c
L = (10 - d)
try:
    L.backward()
except Exception as e:
    print(type(e).__name__ + ": " + str(e))
""",
        expected=r"""RuntimeError: grad can be implicitly created only for scalar outputs
""",
    ),
    SeedCell(
        doc="002",
        index=5,
        title="sum_backward",
        compare="stdout",
        note="verbatim; prints nothing",
        source=r"""import torch
a = torch.randn((3,3), requires_grad = True)
w1 = torch.randn((3,3), requires_grad = True)
w2 = torch.randn((3,3), requires_grad = True)
w3 = torch.randn((3,3), requires_grad = True)
w4 = torch.randn((3,3), requires_grad = True)
b = w1*a
c = w2*a
d = w3*b + w4*c
# Replace L = (10 - d) by
L = (10 -d).sum()
L.backward()
""",
        expected="",
    ),
    SeedCell(
        doc="002",
        index=6,
        title="backward_ones",
        compare="stdout",
        note=(
            "snippet: setup `import torch` + the graph of cell 002-04 up to `L = (10 - d)` added "
            "in front; prints nothing"
        ),
        source=r"""import torch
a = torch.randn((3,3), requires_grad = True)
w1 = torch.randn((3,3), requires_grad = True)
w2 = torch.randn((3,3), requires_grad = True)
w3 = torch.randn((3,3), requires_grad = True)
w4 = torch.randn((3,3), requires_grad = True)
b = w1*a
c = w2*a
d = w3*b + w4*c
L = (10 - d)
# --- seed cell ---
# Replace L.backward() with
L.backward(torch.ones(L.shape))
""",
        expected="",
    ),
    SeedCell(
        doc="002",
        index=7,
        title="sgd_update",
        compare="stdout",
        note=(
            "snippet with undefined names: setup `import torch` + the graph and backward of cell "
            "002-05 + `learning_rate = 0.01` added in front; prints nothing"
        ),
        source=r"""import torch
a = torch.randn((3,3), requires_grad = True)
w1 = torch.randn((3,3), requires_grad = True)
w2 = torch.randn((3,3), requires_grad = True)
w3 = torch.randn((3,3), requires_grad = True)
w4 = torch.randn((3,3), requires_grad = True)
b = w1*a
c = w2*a
d = w3*b + w4*c
L = (10 -d).sum()
L.backward()
learning_rate = 0.01
# --- seed cell ---
w1 = w1 - learning_rate * w1.grad
""",
        expected="",
    ),
    SeedCell(
        doc="002",
        index=8,
        title="dynamic_graph_leaf",
        compare="stdout",
        note=(
            "setup `import torch` added (the page imports torch once, in cell 000-00); prints "
            "nothing"
        ),
        source=r"""import torch
# --- seed cell ---
a = torch.randn((3,3), requires_grad = True) #No graph yet, as a is a leaf
w1 = torch.randn((3,3), requires_grad = True) #Same logic as above
b = w1*a #Graph with node `mulBackward` is created.
""",
        expected="",
    ),
    SeedCell(
        doc="002",
        index=9,
        title="retain_graph",
        compare="stdout",
        note=(
            "inline code line of the article (backticks removed); setup `import torch`, `a`, "
            "`w1`, `loss = (w1*a).sum()` added in front and a second `loss.backward()` appended "
            "(it works only because the graph was retained); prints nothing"
        ),
        fixes=(("`loss.backward(retain_graph = True)`", "loss.backward(retain_graph = True)"),),
        source=r"""import torch
a = torch.randn((3,3), requires_grad = True)
w1 = torch.randn((3,3), requires_grad = True)
loss = (w1*a).sum()
# --- seed cell ---
loss.backward(retain_graph = True)
# --- end of seed cell ---
loss.backward()
""",
        expected="",
    ),
    SeedCell(
        doc="002",
        index=10,
        title="no_grad_context",
        compare="stdout",
        note=(
            "original `with torch.no_grad:` fails (TypeError: 'type' object does not support the "
            "context manager protocol): needs `torch.no_grad()`; the placeholder line `inference "
            "code goes here` becomes a comment plus `b = a * 2`, with setup `a = torch.ones(2, "
            "requires_grad=True)` in front and `print(b.requires_grad, b.grad_fn)` appended to "
            "show that no graph is recorded"
        ),
        fixes=(
            ("with torch.no_grad:", "with torch.no_grad():"),
            ("    inference code goes here", "    # inference code goes here\n    b = a * 2"),
        ),
        source=r"""import torch
a = torch.ones(2, requires_grad=True)
# --- seed cell ---
with torch.no_grad():
    # inference code goes here
    b = a * 2
# --- end of seed cell ---
print(b.requires_grad, b.grad_fn)
""",
        expected="False None\n",
    ),
]
