"""Tensor idioms from Stack Overflow answers and numerical code, printed: sliding windows with
as_strided / unfold, take_along_dim top-k gathers, tensor_split, tril_indices for pairwise
features, logspace grids, nan_to_num / count_nonzero cleaning, broadcast_shapes / atleast_2d,
integer division and remainder signs, bitwise masks and shifts, frexp / ldexp / copysign /
nextafter / float_power, unravel_index, logaddexp / logcumsumexp, torch.special functions,
gcd / lcm / hypot, msort, new_full, masked_scatter / index_copy, sgn / signbit, vector and
matrix norms, tensordot / inner / vdot / linalg.cross, and dtype promotion with overflow."""
import torch

torch.manual_seed(0)
f64 = torch.float64

# ---- sliding windows
series = torch.arange(10.0)
windows = series.as_strided(size=(8, 3), stride=(1, 1))
print(windows)
print(torch.equal(windows, series.unfold(0, 3, 1)), series.unfold(0, 4, 3))
img = torch.arange(16.0).view(1, 4, 4)
patches = img.unfold(1, 2, 2).unfold(2, 2, 2)
print(patches.shape, patches.reshape(-1, 4))
moving_avg = series.unfold(0, 3, 1).mean(-1)
print(moving_avg)

# ---- gathers along a dim
scores = torch.randn(3, 5)
idx = scores.argsort(dim=1, descending=True)[:, :2]
print(torch.take_along_dim(scores, idx, dim=1))
print(torch.equal(torch.take_along_dim(scores, idx, dim=1), scores.topk(2, dim=1).values))
print(torch.take_along_dim(scores, scores.argmax(), dim=None))
print(torch.tensor_split(torch.arange(10), 3), torch.tensor_split(torch.arange(10), [2, 5]))
print(torch.tensor_split(torch.arange(12).view(3, 4), torch.tensor([1, 3]), dim=1))

# ---- pairwise features with tril_indices
feats = torch.randn(4, 3, dtype=f64)
rows, cols = torch.tril_indices(4, 4, offset=-1)
print(rows, cols)
print((feats[rows] * feats[cols]).sum(-1))
print(torch.triu_indices(3, 4, 1), torch.tril_indices(3, 3).dtype)

# ---- grids and cleaning
print(torch.logspace(-3, 0, 4), torch.logspace(0, 2, 3, base=2))
print(torch.logspace(-1, 1, 5, dtype=f64))
dirty = torch.tensor([1.0, float("nan"), float("inf"), -float("inf"), -2.5])
print(torch.nan_to_num(dirty), torch.nan_to_num(dirty, nan=0.0, posinf=1e3, neginf=-1e3))
print(dirty.nan_to_num(0.5).count_nonzero(), torch.count_nonzero(torch.eye(3), dim=0))
print(torch.isfinite(dirty), torch.isposinf(dirty), torch.isneginf(dirty), dirty.isnan().any())

# ---- broadcasting helpers
print(torch.broadcast_shapes((3, 1), (1, 4)), torch.broadcast_shapes((2, 1, 5), (3, 1), (5,)))
print(torch.atleast_2d(torch.tensor(1.0)), torch.atleast_1d(torch.tensor(2)),
      torch.atleast_3d(torch.ones(2)).shape)
a, b = torch.broadcast_tensors(torch.arange(3).view(3, 1), torch.arange(2))
print(a, b)

# ---- integer arithmetic signs
n = torch.tensor([7, -7, 7, -7])
d = torch.tensor([2, 2, -2, -2])
print(n // d, torch.div(n, d, rounding_mode="trunc"), torch.div(n, d, rounding_mode="floor"))
print(n % d, torch.remainder(n, d), torch.fmod(n, d), n / d)
x = torch.tensor([5.5, -5.5, 5.5, -5.5])
y = torch.tensor([2.0, 2.0, -2.0, -2.0])
print(torch.remainder(x, y), torch.fmod(x, y), x // y)
print(torch.tensor([-7]) // 2, -7 // 2, torch.tensor(-7).div(2, rounding_mode="trunc"))

# ---- bitwise masks and shifts
flags = torch.tensor([0b1010, 0b0110, 0b1111], dtype=torch.int32)
print(flags & 0b0011, flags | 0b0001, flags ^ 0b1111, ~flags)
print(flags << 2, flags >> 1, torch.bitwise_left_shift(flags, 1), torch.bitwise_and(flags, 4))
print(torch.tensor([True, False]) ^ torch.tensor([True, True]), ~torch.tensor([True, False]))
u8 = torch.tensor([200, 100], dtype=torch.uint8)
print(u8 + u8, u8 << 1, u8.bitwise_not(), (u8 >> 4).dtype)

# ---- floating-point plumbing
v = torch.tensor([0.0, 1.0, -3.5, 1e-40, 1024.0])
mant, expo = torch.frexp(v)
print(mant, expo, torch.ldexp(mant, expo))
print(torch.copysign(torch.tensor([1.0, 2.0, 0.0]), torch.tensor([-1.0, 0.0, -0.0])))
print(torch.nextafter(torch.tensor([1.0, 0.0], dtype=f64), torch.tensor([2.0, -1.0], dtype=f64)))
print(torch.nextafter(torch.tensor([1.0]), torch.tensor([2.0])) - 1)
print(torch.float_power(torch.tensor([2, 3]), 2), torch.float_power(torch.tensor([4.0]), 0.5))
print(torch.signbit(torch.tensor([-0.0, 0.0, -1.0, 2.0])), torch.sgn(torch.tensor([-2.0, 0.0, 3.0])))
print(torch.unravel_index(torch.tensor([4, 7, 11]), (3, 4)))
flat = torch.randn(3, 4).argmax()
print(torch.unravel_index(flat, (3, 4)))

# ---- log-space arithmetic
la = torch.tensor([-1000.0, 0.0, 2.0], dtype=f64)
lb = torch.tensor([-1000.0, -1.0, 2.0], dtype=f64)
print(torch.logaddexp(la, lb), torch.logaddexp2(la, lb))
lp = torch.log(torch.tensor([0.1, 0.2, 0.3, 0.4], dtype=f64))
print(torch.logcumsumexp(lp, 0), torch.logcumsumexp(lp, 0).exp())

# ---- torch.special
s = torch.tensor([0.1, 0.5, 1.0, 2.5], dtype=f64)
print(torch.special.erfcx(s), torch.special.logit(s[:2]), torch.special.expit(s))
print(torch.special.ndtr(s), torch.special.ndtri(torch.tensor([0.025, 0.5, 0.975], dtype=f64)))
print(torch.special.log_ndtr(-s * 10), torch.special.entr(torch.tensor([0.0, 0.5, 1.0, -1.0])))
print(torch.special.xlog1py(torch.tensor([0.0, 2.0]), torch.tensor([-1.0, 1.0])),
      torch.special.xlogy(torch.tensor([0.0, 2.0]), torch.tensor([0.0, 3.0])))
print(torch.special.i0e(s), torch.special.i1(s), torch.special.i1e(s))
print(torch.special.zeta(torch.tensor([2.0, 4.0], dtype=f64), torch.tensor(1.0, dtype=f64)))
print(torch.special.multigammaln(torch.tensor([2.5, 3.0], dtype=f64), 2))
print(torch.special.polygamma(1, s), torch.special.digamma(s), torch.special.gammaln(s))
print(torch.special.erfinv(torch.tensor([-0.5, 0.0, 0.9], dtype=f64)),
      torch.special.sinc(torch.tensor([0.0, 0.5, 1.0])))
print(torch.special.softmax(torch.tensor([[1.0, 2.0, 3.0]]), dim=1),
      torch.special.log1p(torch.tensor([1e-10], dtype=f64)), torch.special.exp2(torch.tensor([3.0])))
print(torch.special.gammainc(torch.tensor([1.0, 2.0], dtype=f64), torch.tensor([1.0, 3.0], dtype=f64)),
      torch.special.gammaincc(torch.tensor([1.0, 2.0], dtype=f64), torch.tensor([1.0, 3.0], dtype=f64)))
print(torch.special.bessel_j0(s), torch.special.modified_bessel_i0(s))

# ---- number theory and geometry
print(torch.gcd(torch.tensor([12, 18, -8, 0]), torch.tensor([8, 27, 12, 5])),
      torch.lcm(torch.tensor([4, 6, 0]), torch.tensor([6, 15, 3])))
print(torch.hypot(torch.tensor([3.0, 5.0]), torch.tensor([4.0, 12.0])))
print(torch.msort(torch.tensor([[3, 1], [2, 4], [1, 0]])))

# ---- constructors and masked writes
base = torch.zeros(2, 3, dtype=torch.int16)
print(base.new_full((2, 2), 7), base.new_ones(3).dtype, base.new_tensor([1.5, 2.5]).dtype)
target = torch.zeros(2, 4)
mask = torch.tensor([[True, False, True, False], [False, True, True, False]])
print(target.masked_scatter(mask, torch.arange(1.0, 9.0)))
print(torch.zeros(5, 2).index_copy(0, torch.tensor([4, 0]), torch.tensor([[1.0, 2.0], [3.0, 4.0]])))
print(torch.zeros(3).index_fill_(0, torch.tensor([0, 2]), -1.0))

# ---- norms and products
m = torch.arange(1.0, 7.0).view(2, 3)
print(torch.linalg.norm(m), torch.linalg.norm(m, ord="fro"), torch.linalg.norm(m, ord=1),
      torch.linalg.norm(m, ord=float("inf")), torch.linalg.norm(m, dim=1))
print(torch.linalg.vector_norm(m, ord=3), torch.linalg.vector_norm(m, ord=0),
      torch.linalg.vector_norm(m, ord=-1, dim=0), torch.linalg.matrix_norm(m, ord="nuc"))
print(torch.norm(m, p=1, dim=0), torch.norm(m, p="fro"), m.norm(dim=1, keepdim=True))
aa = torch.arange(24.0).view(2, 3, 4)
bb = torch.arange(12.0).view(4, 3)
print(torch.tensordot(aa, bb, dims=([1, 2], [1, 0])), torch.tensordot(aa, bb, dims=1).shape)
print(torch.inner(torch.tensor([1.0, 2.0]), torch.tensor([[1.0, 0.0], [0.0, 1.0]])),
      torch.vdot(torch.tensor([1.0, 2.0]), torch.tensor([3.0, 4.0])))
print(torch.linalg.cross(torch.tensor([[1.0, 0.0, 0.0]]), torch.tensor([[0.0, 1.0, 0.0]])),
      torch.cross(torch.eye(3), torch.ones(3, 3), dim=1))
print(torch.chain_matmul(torch.eye(2), torch.ones(2, 3), torch.ones(3, 1)))

# ---- promotion and overflow
print(torch.tensor([250], dtype=torch.uint8) + 10, torch.tensor([100], dtype=torch.int8) * 2)
print(torch.tensor([1, 2]) / 2, (torch.tensor([1, 2]) * 1.5).dtype,
      (torch.tensor([1], dtype=torch.int32) + torch.tensor([1], dtype=torch.int64)).dtype)
print(torch.tensor([3.7, -3.7, 300.0]).to(torch.int32), torch.tensor([3.7, -1.2]).long())
print(torch.result_type(torch.tensor([1], dtype=torch.int8), 1.0),
      torch.promote_types(torch.uint8, torch.int8), torch.can_cast(torch.float32, torch.int32))
print(torch.tensor([1.0, 2.0]).nbytes, torch.tensor([1, 2], dtype=torch.int16).itemsize,
      torch.ones(3, 4, dtype=f64).element_size())
print(torch.iinfo(torch.int16), torch.finfo(torch.bfloat16))
