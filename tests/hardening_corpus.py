"""Bad and edge inputs run in child processes against gradrs and torch; `python tests/hardening_corpus.py` prints the tally.

Each case is one Python snippet run with ``torch`` bound to the module under test (gradrs or
PyTorch), ``F`` to its ``nn.functional``, ``np`` to numpy and ``dev`` to a device; a snippet naming ``dev`` runs
on the CPU and, for gradrs, on the GPU too (compared with PyTorch's CPU outcome). Cases run many
to a child process; a child that dies takes only the case it was running with it (recorded as
a crash) and a fresh child goes on from the next case. The outcome of a case is its value
(summarized: shape, dtype, values) or its exception (type, message).
"""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
import time

# Case flags: "msg" = PyTorch's message is stable text gradrs must print too.
MSG = "msg"

DEEP = "(lambda n: [__import__('functools').reduce(lambda a, _: [a], range(n), 0)])"


def _creation_cases():
    out = []
    fns = [
        "torch.empty({s}, device=dev)",
        "torch.zeros({s}, device=dev)",
        "torch.ones({s}, device=dev)",
        "torch.rand({s}, device=dev)",
        "torch.randn({s}, device=dev)",
        "torch.full(({s}), 1.5, device=dev)",
        "torch.randint(0, 5, ({s}), device=dev)",
    ]
    sizes = {
        "(2**40,)": MSG,
        "(2**62,)": MSG,
        "(2**31, 2**31, 4)": MSG,
        "(2**32, 2**32)": MSG,
        "(2**40, 2**40)": MSG,
        "(2**63,)": "",
        "(-1,)": MSG,
        "(2, -3)": MSG,
        "(1.5,)": "",
        "('a',)": "",
        "(None,)": "",
        "(2, None)": "",
        "([2, 'a'],)": "",
        "(0, 2**62)": "",
        "(0,)": MSG,
    }
    for f in fns:
        for s, flag in sizes.items():
            size = s[1:-1].rstrip(",") if "({s})" not in f else s[1:-1]
            out.append((f.format(s=size), flag))
    out += [
        ("torch.zeros(2**34)", MSG),
        ("torch.zeros(2**34, device=dev)", ""),
        ("torch.randn(2**40)", MSG),
        ("torch.arange(0, 2**40)", MSG),
        ("torch.arange(0, 2**40, device=dev)", ""),
        ("torch.arange(0., float('inf'))", MSG),
        ("torch.arange(0., float('nan'))", MSG),
        ("torch.arange(float('-inf'), 0.)", MSG),
        ("torch.arange(0, 10, 0)", MSG),
        ("torch.arange(10, 0)", MSG),
        ("torch.arange(0, 10, -1)", MSG),
        ("torch.arange(0, 2**62, device=dev)", ""),
        ("torch.arange(0, 'a')", ""),
        ("torch.arange(None)", ""),
        ("torch.linspace(0, 1, -1)", MSG),
        ("torch.linspace(0, 1, 2**40)", MSG),
        ("torch.logspace(0, 1, -2)", MSG),
        ("torch.eye(2**20)", MSG),
        ("torch.eye(2**20, device=dev)", ""),
        ("torch.eye(-1)", MSG),
        ("torch.eye(2, -1)", MSG),
        ("torch.eye(2**40, 0)", ""),
        ("torch.full((2,), 'a')", ""),
        ("torch.full((2,), None)", ""),
        ("torch.ones(2).repeat(2**40)", MSG),
        ("torch.ones(2, device=dev).repeat(2**40)", ""),
        ("torch.ones(2).repeat(-1)", MSG),
        ("torch.ones(2).repeat(2**62, 4)", ""),
        ("torch.ones(2, 2).repeat(2)", MSG),
        ("torch.ones(1).expand(2**40).contiguous()", MSG),
        ("torch.ones(1, device=dev).expand(2**40).contiguous()", ""),
        ("torch.ones(1).expand(2**40).clone()", MSG),
        ("torch.ones(1).expand(2**40) + 1", MSG),
        ("torch.ones(1).expand(2**40).sum()", ""),
        ("torch.ones(1).expand(-2)", MSG),
        ("torch.ones(1).expand(-1)", MSG),
        ("torch.ones(2).expand(3)", MSG),
        ("torch.ones(1).expand(2**62, 4)", ""),
        ("torch.ones(2**20).view(2**10, -1).expand(2**40, 2**10, 2**10).contiguous()", ""),
        ("torch.empty(2**31, 2**31, 4).numel()", MSG),
        ("torch.empty_strided((2, 2), (2**62, 1))", ""),
        ("torch.empty_strided((2**40,), (1,))", MSG),
        ("torch.ones(2).new_empty(2**40)", MSG),
        ("torch.ones(2).new_zeros((2**62,))", MSG),
        ("torch.zeros_like(torch.ones(1).expand(2**40))", MSG),
        ("torch.ones(3).tile(2**40)", MSG),
        ("torch.ones(3).repeat_interleave(2**40)", ""),
        ("torch.ones(3).reshape(2**40, -1)", ""),
        ("torch.ones(6).view(-1, -1)", MSG),
        ("torch.ones(6).view(4, -1)", MSG),
        ("torch.ones(6).reshape(-2, 3)", MSG),
        ("torch.ones(6).view(2**62, 0)", ""),
        ("torch.ones(0).view(2**62, -1)", ""),
        ("torch.ones(2, 3).unflatten(1, (2**40, -1))", ""),
        ("torch.randperm(-1)", MSG),
        ("torch.randperm(2**40)", ""),
        ("torch.ones(2**20).unfold(0, 2, 1).contiguous().shape", ""),
        ("torch.ones(4).unfold(0, 5, 1)", ""),
        ("torch.ones(4).unfold(0, 2, 0)", ""),
        ("torch.ones(2).new_full((2**40,), 1.)", MSG),
        ("torch.tensor([1., 2.]).pow(2**40)", ""),
        ("torch.ones(3).multinomial(2**40, replacement=True)", ""),
        ("torch.ones(3).multinomial(4)", MSG),
        ("torch.ones(2, 2).diag_embed().shape", ""),
        ("torch.ones(2**20).diag()", MSG),
        ("torch.ones(2**20).outer(torch.ones(2**20))", MSG),
        ("torch.ones(2**20).diag_embed()", MSG),
        ("torch.ones(2**20, 1) * torch.ones(1, 2**20)", MSG),
        ("torch.ones(2**20, 1, device=dev) * torch.ones(1, 2**20, device=dev)", ""),
        ("torch.ones(1, 2**20).mm(torch.ones(2**20, 1)).shape", ""),
        ("torch.ones(2**20, 1).mm(torch.ones(1, 2**20))", MSG),
    ]
    return out


def _conversion_cases():
    return [
        ("torch.tensor('abc')", MSG),
        ("torch.tensor(['a'])", MSG),
        ("torch.tensor([['a']])", MSG),
        ("torch.tensor([1, 'a'])", ""),
        ("torch.tensor(b'a')", ""),
        ("torch.tensor([b'a'])", ""),
        ("torch.tensor(None)", MSG),
        ("torch.tensor([None])", ""),
        ("torch.tensor([1, None])", ""),
        ("torch.tensor([[1, 2], [3]])", MSG),
        ("torch.tensor([[1], 2])", ""),
        ("torch.tensor([1, [2]])", ""),
        ("torch.tensor({})", ""),
        ("torch.tensor({1: 2})", ""),
        ("torch.tensor(object())", ""),
        ("torch.tensor([object()])", ""),
        ("torch.tensor(set([1]))", ""),
        ("torch.tensor(" + DEEP + "(127)).dim()", MSG),
        ("torch.tensor(" + DEEP + "(128))", MSG),
        ("torch.tensor(" + DEEP + "(5000))", MSG),
        ("torch.tensor(" + DEEP + "(100000))", MSG),
        ("torch.as_tensor(" + DEEP + "(100000))", ""),
        ("torch.Tensor(" + DEEP + "(100000))", ""),
        ("torch.tensor([float('nan')], dtype=torch.int64)", MSG),
        ("torch.tensor([float('inf')], dtype=torch.int32)", MSG),
        ("torch.tensor(float('nan'), dtype=torch.int64)", MSG),
        ("torch.tensor(2**63)", ""),
        ("torch.tensor([2**64])", ""),
        ("torch.tensor(-2**63 - 1)", ""),
        ("torch.tensor([2**40], dtype=torch.int32)", ""),
        ("torch.tensor([1.5], dtype='float32')", ""),
        ("torch.tensor([1.5], dtype=5)", ""),
        ("torch.tensor([1.5], device='xyz')", ""),
        ("torch.tensor([1.5], device=5.5)", ""),
        ("torch.Tensor('a')", MSG),
        ("torch.Tensor(['a'])", ""),
        ("torch.Tensor(2, 'a')", ""),
        ("torch.Tensor(-1)", ""),
        ("torch.Tensor(None)", ""),
        ("torch.Tensor(2**40)", ""),
        ("torch.Tensor([1, 2]).tolist()", MSG),
        ("torch.as_tensor('a')", ""),
        ("torch.as_tensor(['a'])", ""),
        ("torch.as_tensor(None)", ""),
        ("torch.tensor(__import__('numpy').array(['a']))", ""),
        ("torch.tensor(__import__('numpy').array([object()]))", ""),
        ("torch.tensor(__import__('numpy').array([1+2j]))", ""),
        ("torch.from_numpy(__import__('numpy').array(['a']))", ""),
        ("torch.tensor([__import__('numpy').float32(1.5), 2])", MSG),
        ("int(torch.tensor(float('nan')))", MSG),
        ("int(torch.tensor(float('inf')))", MSG),
        ("torch.tensor(float('nan')).long()", ""),
        ("list(torch.tensor(1.))", MSG),
        ("len(torch.tensor(1.))", MSG),
        ("torch.tensor([1.]).item() + torch.ones(2).item()", MSG),
        ("bool(torch.ones(2))", MSG),
        ("float(torch.ones(2))", MSG),
        ("torch.ones(2).numpy(dtype=1)", ""),
    ]


def _indexing_cases():
    out = []
    a = "torch.arange(6., device=dev).view(2, 3)"
    ix = "torch.tensor({v}, device=dev)"
    for v, flag in [("[2]", MSG), ("[-1]", MSG), ("[-3]", MSG), ("[2**40]", MSG), ("[-2**40]", MSG)]:
        i = ix.format(v=v)
        out += [
            (f"{a}.index_select(0, {i})", flag),
            (f"{a}.index_select(1, {i})", ""),
            (f"{a}.gather(0, {i}.view(1, 1))", flag),
            (f"{a}.gather(1, {i}.view(1, 1).expand(2, 1))", flag),
            (f"{a}.scatter(0, {i}.view(1, 1), 1.)", flag),
            (f"{a}.scatter(0, {i}.view(1, 1), torch.ones(1, 1, device=dev))", flag),
            (f"{a}.scatter_add(0, {i}.view(1, 1), torch.ones(1, 1, device=dev))", flag),
            (f"{a}.scatter_reduce(0, {i}.view(1, 1), torch.ones(1, 1, device=dev), 'sum')", ""),
            (f"{a}.index_add(0, {i}, torch.ones(1, 3, device=dev))", ""),
            (f"{a}.index_copy(0, {i}, torch.ones(1, 3, device=dev))", ""),
            (f"{a}.index_fill(0, {i}, 1.)", ""),
            (f"{a}.index_put_(({i},), torch.tensor(1., device=dev))", ""),
            (f"{a}.take({i})", flag),
            (f"{a}.put_({i}, torch.ones(1, device=dev))", ""),
            (f"F.embedding({i}, torch.ones(2, 3, device=dev))", flag),
            (f"F.one_hot({i}.abs(), 2)", ""),
            (f"{a}[{i}]", ""),
            (f"{a}[:, {i}]", ""),
            (f"{a}[{v}]", ""),
            (f"{a}[{v[1:-1]}]", ""),
            (f"{a}[0, {v[1:-1]}]", ""),
            (f"(lambda t: t.__setitem__({i}, 1.) or t)({a})", ""),
            (f"(lambda t: t.__setitem__((0, {v[1:-1]}), 1.) or t)({a})", ""),
            (f"{a}.select(0, {v[1:-1]})", ""),
            (f"{a}.narrow(0, {v[1:-1]}, 1)", ""),
            (f"{a}.sum({v[1:-1]})", ""),
            (f"{a}.unsqueeze({v[1:-1]})", ""),
            (f"{a}.transpose(0, {v[1:-1]})", ""),
            (f"{a}.flip({v[1:-1]})", ""),
            (f"{a}.softmax({v[1:-1]})", ""),
            (f"{a}.cumsum({v[1:-1]})", ""),
            (f"{a}.sort({v[1:-1]})[0]", ""),
            (f"{a}.topk(1, {v[1:-1]})[0]", ""),
            (f"{a}.max({v[1:-1]})[0]", ""),
            (f"{a}.argmax({v[1:-1]})", ""),
            (f"{a}.unbind({v[1:-1]})[0]", ""),
            (f"{a}.chunk(2, {v[1:-1]})[0]", ""),
            (f"torch.cat([{a}, {a}], {v[1:-1]})", ""),
            (f"torch.stack([{a}, {a}], {v[1:-1]})", ""),
        ]
    out += [
        (f"{a}.index_select(0, torch.tensor([0.], device=dev))", MSG),
        (f"{a}.index_select(0, torch.tensor([[0]], device=dev))", MSG),
        (f"{a}.index_select(2, torch.tensor([0], device=dev))", MSG),
        (f"{a}.gather(0, torch.tensor([[0.]], device=dev))", MSG),
        (f"{a}.gather(0, torch.tensor([0], device=dev))", MSG),
        (f"{a}.gather(0, torch.tensor([[0, 0, 0, 0]], device=dev))", MSG),
        (f"{a}.scatter(0, torch.tensor([[0]], device=dev), torch.ones(1, device=dev))", MSG),
        (f"{a}.take(torch.tensor([0.], device=dev))", MSG),
        ("F.embedding(torch.tensor([0.], device=dev), torch.ones(2, 3, device=dev))", ""),
        ("F.embedding(torch.tensor([0]), torch.ones(2, device=dev))", ""),
        ("torch.ones(2)[['a']]", MSG),
        ("torch.ones(2)[[0, 'a']]", ""),
        ("torch.ones(2)['a']", ""),
        ("torch.ones(2)[None, None, ...].shape", MSG),
        ("torch.ones(2)[..., ...]", MSG),
        ("torch.ones(2)[0, 0]", MSG),
        ("torch.ones(2)[1.5]", ""),
        ("torch.ones(2)[{}]", ""),
        ("torch.ones(2)[object()]", ""),
        ("torch.ones(2)[torch.tensor([0.5])]", MSG),
        ("torch.ones(2)[torch.tensor([True])]", MSG),
        ("torch.ones(2)[torch.tensor([True, False, True])]", MSG),
        ("torch.ones(2)[[True]]", ""),
        ("torch.ones(2)[torch.ones(2, 2, dtype=torch.bool)]", MSG),
        ("torch.ones(2, 3)[torch.tensor([0, 1]), torch.tensor([0, 1, 2])]", MSG),
        ("torch.ones(2)[::0]", MSG),
        ("torch.ones(2)[::-1]", MSG),
        ("torch.ones(2)[2**62:]", MSG),
        ("torch.ones(2)[-2**62:2**62]", MSG),
        ("torch.ones(2)[2**64]", ""),
        ("torch.ones(2)[[2**64]]", ""),
        ("(lambda a: a.__setitem__(0, 'a'))(torch.ones(2))", MSG),
        ("(lambda a: a.__setitem__(0, None))(torch.ones(2))", ""),
        ("(lambda a: a.__setitem__(0, [1, 2]))(torch.ones(2))", ""),
        ("(lambda a: a.__setitem__(0, torch.ones(2)))(torch.ones(2))", ""),
        ("(lambda a: a.__setitem__(slice(None), torch.ones(3)))(torch.ones(2))", ""),
        ("(lambda a: a.__setitem__('a', 1.))(torch.ones(2))", ""),
        ("(lambda a: a.__setitem__(5, 1.))(torch.ones(2))", MSG),
        ("(lambda a: a.__setitem__(-3, 1.))(torch.ones(2))", MSG),
        ("(lambda a: a.__setitem__([0, 5], 1.))(torch.ones(2))", ""),
        ("(lambda a: a.__setitem__(torch.tensor([5]), 1.))(torch.ones(2))", ""),
        ("(lambda a: a.__setitem__(0, float('nan')) or a)(torch.ones(2, dtype=torch.int64))", ""),
        ("(lambda a: a.__setitem__(0, 2**70))(torch.ones(2, dtype=torch.int64))", ""),
        ("(lambda a: a.__setitem__(0, 2**40) or a)(torch.ones(2, dtype=torch.int32))", ""),
        ("torch.ones(3).masked_fill(torch.ones(2, dtype=torch.bool), 1.)", MSG),
        ("torch.ones(3).masked_fill(torch.ones(3), 1.)", MSG),
        ("torch.ones(3).masked_select(torch.ones(2, dtype=torch.bool))", MSG),
        ("torch.ones(3).masked_scatter(torch.ones(3, dtype=torch.bool), torch.ones(2))", ""),
        ("torch.ones(3).narrow(0, 2, 2)", MSG),
        ("torch.ones(3).narrow(0, -4, 1)", ""),
        ("torch.ones(3).narrow(0, 0, -1)", ""),
        ("torch.ones(3).unfold(1, 1, 1)", ""),
        ("torch.ones(3).split(0)", ""),
        ("torch.ones(3).split(-1)", ""),
        ("torch.ones(3).split([1, 1])", MSG),
        ("torch.ones(3).chunk(0)", MSG),
        ("torch.ones(3).chunk(-1)", MSG),
        ("torch.ones(3).permute(0, 0)", MSG),
        ("torch.ones(3, 2).permute(0)", MSG),
        ("torch.ones(3).squeeze(5)", MSG),
        ("torch.ones(3).movedim(0, 5)", ""),
        ("torch.ones(3).roll(1, 5)", ""),
        ("torch.ones(3).kthvalue(5)", ""),
        ("torch.ones(3).topk(5)", MSG),
        ("torch.ones(3).topk(-1)", ""),
        ("torch.ones(3).diagonal(0, 0, 0)", ""),
        ("torch.ones(3).diagonal()", ""),
        ("torch.ones(3, 3).diagonal(0, 0, 5)", ""),
        ("torch.ones(3, 3).tril(2**62)", ""),
        ("torch.ones(3).bincount()", ""),
        ("torch.tensor([-1]).bincount()", MSG),
        ("torch.ones(3, dtype=torch.long).bincount(minlength=-1)", ""),
        ("torch.ones(3).repeat_interleave(torch.tensor([-1, 1, 1]))", ""),
        ("torch.ones(3).repeat_interleave(torch.tensor([1, 1]))", ""),
        ("torch.ones(2, 3).index_select(0, torch.tensor([0, 1])).sum()", MSG),
        ("F.nll_loss(torch.ones(2, 3), torch.tensor([0, 3]))", MSG),
        ("F.nll_loss(torch.ones(2, 3), torch.tensor([0, -5]))", MSG),
        ("F.cross_entropy(torch.ones(2, 3), torch.tensor([0, 3]))", MSG),
        ("F.cross_entropy(torch.ones(2, 3), torch.tensor([0, -5]))", MSG),
        ("F.cross_entropy(torch.ones(2, 3, device=dev), torch.tensor([0, 7], device=dev))", ""),
        ("F.one_hot(torch.tensor([3]), 2)", MSG),
        ("F.one_hot(torch.tensor([-1]))", MSG),
        ("torch.ones(4, 4).index_put_((torch.tensor([4]), torch.tensor([0])), torch.tensor(1.))", ""),
        ("torch.ones(4).index_put_((torch.tensor([0, 1]),), torch.ones(3))", ""),
        ("torch.ones(4).put_(torch.tensor([4]), torch.ones(1), accumulate=True)", ""),
        ("torch.ones(4).index_reduce(0, torch.tensor([4]), torch.ones(1), 'prod')", ""),
        ("torch.ones(3).scatter_(0, torch.tensor([1, 2, 3]), torch.ones(2))", ""),
        ("torch.ones(3, 3).gather(1, torch.tensor([[0], [1], [2], [0]]))", ""),
        ("torch.ones(3).searchsorted(torch.ones(2), side='middle')", ""),
        ("torch.ones(3).take_along_dim(torch.tensor([3]))", ""),
        ("torch.ones(3).take_along_dim(torch.tensor([-4]), 0)", ""),
    ]
    return out


def _type_cases():
    return [
        ("torch.sum(None)", MSG),
        ("torch.exp([1.])", MSG),
        ("torch.exp(1.)", MSG),
        ("F.relu(1.5)", ""),
        ("torch.sort([1., 2.])", ""),
        ("torch.cat(torch.ones(2, 2))", ""),
        ("torch.stack(torch.ones(2, 2))", ""),
        ("torch.cat([])", MSG),
        ("torch.cat([torch.ones(2), None])", ""),
        ("torch.cat([torch.ones(2), torch.ones(2, 2)])", MSG),
        ("torch.stack([torch.ones(2), torch.ones(3)])", MSG),
        ("torch.stack([])", MSG),
        ("torch.ones(2) + 'a'", ""),
        ("torch.ones(2) + None", ""),
        ("torch.ones(2) + [1, 2]", ""),
        ("torch.ones(2) + torch.ones(3)", MSG),
        ("torch.ones(2, device=dev) + torch.ones(3, device=dev)", MSG),
        ("torch.ones(2) @ torch.ones(3)", MSG),
        ("torch.ones(2, 3) @ torch.ones(2, 3)", MSG),
        ("torch.ones(2, 3, device=dev) @ torch.ones(2, 3, device=dev)", MSG),
        ("torch.ones(()) @ torch.ones(())", MSG),
        ("torch.ones(2, 3).mm(torch.ones(3))", MSG),
        ("torch.ones(2, 2, 3).bmm(torch.ones(3, 3, 2))", MSG),
        ("torch.ones(2, 3).addmm(torch.ones(2, 3), torch.ones(3, 3))", ""),
        ("torch.ones(2).add('a')", ""),
        ("torch.ones(2).add(1, alpha='a')", ""),
        ("torch.ones(2).sum(dim='a')", ""),
        ("torch.ones(2).sum(dim=1.5)", ""),
        ("torch.ones(2).sum(dim=(0, 0))", MSG),
        ("torch.ones(2).to('abc')", ""),
        ("torch.ones(2).to(dtype='float')", ""),
        ("torch.ones(2).to(5)", ""),
        ("torch.ones(2, dtype='float32')", ""),
        ("torch.ones(2, dtype=5)", ""),
        ("torch.ones(2, device='xyz')", MSG),
        ("torch.ones(2, device='cpu:1')", ""),
        ("torch.ones('a')", ""),
        ("torch.ones(None)", ""),
        ("torch.ones([2, None])", ""),
        ("torch.ones(2).view('a')", ""),
        ("torch.ones(2).reshape(None)", ""),
        ("torch.ones(2).expand('a')", ""),
        ("torch.ones(2).permute('a')", ""),
        ("torch.ones(2).type('abc')", ""),
        ("torch.ones(2).pow('a')", ""),
        ("torch.ones(2).clamp('a')", ""),
        ("torch.ones(2).clamp()", MSG),
        ("torch.where(torch.ones(2), 1., 0.)", MSG),
        ("torch.where(torch.ones(2, dtype=torch.bool), torch.ones(3), 0.)", MSG),
        ("torch.ones(2).mean(dtype=torch.int64)", MSG),
        ("torch.ones(2, dtype=torch.int64).mean()", MSG),
        ("torch.ones(2, dtype=torch.int64).requires_grad_()", MSG),
        ("torch.ones(2).float().backward()", MSG),
        ("torch.ones(2, requires_grad=True).sum().backward(torch.ones(2))", MSG),
        ("torch.ones(2, requires_grad=True).exp().backward()", MSG),
        ("torch.ones(2, requires_grad=True).add_(1)", MSG),
        ("torch.ones(2, dtype=torch.int64).add_(1.5)", MSG),
        ("torch.ones(2, dtype=torch.bool).neg()", MSG),
        ("torch.ones(2, dtype=torch.bool) - torch.ones(2, dtype=torch.bool)", MSG),
        ("torch.ones(2, dtype=torch.int64) / 0", MSG),
        ("torch.ones(2, dtype=torch.int64) // 0", MSG),
        ("torch.ones(2, dtype=torch.int64) % 0", MSG),
        ("torch.tensor([2**62]) * 4", MSG),
        ("torch.ones(2, dtype=torch.int64) << 70", ""),
        ("torch.ones(2).bitwise_and(1)", MSG),
        ("torch.ones(2, device=dev) + torch.ones(2)", ""),
        ("torch.ones(2, device=dev).dot(torch.ones(2))", ""),
        ("torch.fmax(torch.tensor(float('nan')), torch.tensor(0.))", MSG),
        ("torch.tensor([float('inf'), 1.]).softmax(0)", MSG),
        ("torch.tensor([float('inf'), float('nan')]).logsumexp(0)", MSG),
        ("torch.tensor([float('inf'), float('inf')]).logsumexp(0)", MSG),
        ("torch.tensor([float('-inf'), float('-inf')]).logsumexp(0)", MSG),
        ("torch.zeros(1).expand(3).copy_(torch.ones(3))", MSG),
        ("torch.zeros(1).expand(3).add_(1)", MSG),
        ("(lambda a: a[1:].add_(a[:-1]))(torch.arange(4.))", MSG),
        ("(lambda a: a.__setitem__(slice(1, None), a[:-1]) or a)(torch.arange(4.))", ""),
        ("torch.ones(3).view(1).shape", MSG),
        ("torch.ones(2, 3).t().view(6)", MSG),
        ("torch.ones(2).split(1)[0].add_(1)", ""),
        ("(lambda a: a.split(1)[0].mul_(2))(torch.ones(2, requires_grad=True).clone())", MSG),
        ("(lambda a: a.unbind()[0].mul_(2))(torch.ones(2, requires_grad=True).clone())", MSG),
        ("(lambda a: a.chunk(2)[0].mul_(2))(torch.ones(2, requires_grad=True).clone())", MSG),
        ("torch.ones(2, requires_grad=True)[0].detach_()", MSG),
        ("torch.ones(2).numpy().shape", MSG),
        ("torch.ones(2, requires_grad=True).numpy()", MSG),
        ("torch.ones(2, requires_grad=True).tolist()", MSG),
        ("F.conv2d(torch.ones(1, 1, 2, 2), torch.ones(1, 1, 3, 3))", ""),
        ("F.conv2d(torch.ones(1, 2, 4, 4), torch.ones(1, 1, 3, 3))", ""),
        ("F.conv2d(torch.ones(1, 1, 4, 4), torch.ones(1, 1, 3, 3), stride=0)", ""),
        ("F.conv2d(torch.ones(1, 1, 4, 4), torch.ones(1, 1, 3, 3), padding=-1)", ""),
        ("F.max_pool2d(torch.ones(1, 1, 4, 4), 0)", ""),
        ("F.max_pool2d(torch.ones(1, 1, 2, 2), 5)", ""),
        ("F.linear(torch.ones(2, 3), torch.ones(4, 2))", ""),
        ("F.layer_norm(torch.ones(2, 3), (4,))", ""),
        ("F.batch_norm(torch.ones(2, 3), torch.ones(4), torch.ones(4))", ""),
        ("F.pad(torch.ones(2), (1,))", ""),
        ("F.pad(torch.ones(2), (-3, 0))", ""),
        ("F.mse_loss(torch.ones(2), torch.ones(3))", ""),
        ("F.softmax(torch.ones(2), 3)", ""),
        ("F.dropout(torch.ones(2), 1.5)", ""),
        ("torch.nn.Linear(-1, 2)", ""),
        ("torch.nn.Linear(2**40, 2**40)", ""),
        ("torch.nn.Embedding(2**40, 2**40)", ""),
        ("torch.manual_seed('a')", ""),
        ("torch.manual_seed(-1)", ""),
        ("torch.manual_seed(2**70)", ""),
        ("torch.set_num_threads(0)", ""),
        ("torch.ones(2).pow(torch.ones(3))", MSG),
        ("torch.ones(3).cumsum(dim=None)", ""),
        ("torch.ones(3).median(7)", ""),
        ("torch.ones(0).max()", MSG),
        ("torch.ones(0).argmax()", MSG),
        ("torch.ones(0, 3).max(0)", MSG),
        ("torch.ones(0).min()", MSG),
        ("torch.ones(0).median()", MSG),
        ("torch.ones(0).kthvalue(1)", ""),
        ("torch.ones(0).topk(1)", ""),
        ("torch.ones(0).mean()", MSG),
        ("torch.ones(0).std()", MSG),
        ("torch.ones(0).prod()", MSG),
        ("torch.ones(0, 3) @ torch.ones(3, 0)", MSG),
        ("torch.ones(0, 3).softmax(0)", MSG),
        ("torch.ones(3).var(correction=5)", MSG),
    ]


def cases():
    """Every case as (snippet, flag): this file's and hardening_corpus_more.py's, once each."""
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import hardening_corpus_more

    out = _creation_cases() + _conversion_cases() + _indexing_cases() + _type_cases()
    seen = {c for c, _ in out}
    return out + [(c, f) for c, f in hardening_corpus_more.cases() if c not in seen]


# --------------------------------------------------------------------------------------------
# the child: runs cases from a start index and prints one JSON line per case
# --------------------------------------------------------------------------------------------


def _round(v):
    if isinstance(v, float):
        return repr(v) if v != v or v in (float("inf"), float("-inf")) else float(f"{v:.5g}")
    if isinstance(v, list):
        return [_round(x) for x in v]
    return v


def _summary(mod, v):
    if isinstance(v, mod.Tensor):
        t = v.detach()
        if t.device.type != "cpu":
            t = t.cpu()
        small = t.numel() <= 64 and all(d <= 64 for d in t.shape)
        vals = _round(t.tolist()) if small else None
        return ["tensor", list(t.shape), str(t.dtype).split(".")[-1], vals]
    if isinstance(v, (tuple, list)) and v and all(isinstance(x, mod.Tensor) for x in v):
        return ["seq", [_summary(mod, x) for x in v]]
    if isinstance(v, (bool, int, float)) or v is None:
        return ["py", type(v).__name__, _round(v)]
    if isinstance(v, (tuple, list)):
        return ["py", "seq", _round(list(v)) if len(v) < 64 else len(v)]
    return ["py", type(v).__name__, None]


def child_main(modname, path, start):
    import warnings

    warnings.simplefilter("ignore")
    sys.setrecursionlimit(10000)
    mod = __import__(modname)
    fmod = __import__(modname + ".nn.functional", fromlist=["_"])
    import numpy
    with open(path) as fh:
        todo = json.load(fh)
    for i in range(start, len(todo)):
        code, device = todo[i]
        print(json.dumps({"i": i, "start": True}), flush=True)
        ns = {"torch": mod, "F": fmod, "dev": device, "np": numpy}
        try:
            v = eval(code, ns)
            rec = {"kind": "ok", "value": _summary(mod, v)}
        except BaseException as e:  # noqa: BLE001 - a panic is a BaseException; count it
            if isinstance(e, (KeyboardInterrupt, SystemExit)):
                raise
            names = [c.__name__ for c in type(e).__mro__]
            rec = {"kind": "raise", "type": type(e).__name__, "mro": names, "msg": str(e)}
        rec["i"] = i
        print(json.dumps(rec, default=repr), flush=True)


# --------------------------------------------------------------------------------------------
# the parent: runs a list of (snippet, device) in children, restarting after a crash
# --------------------------------------------------------------------------------------------


def run_all(modname, todo, tmpdir, timeout=20.0):
    """Outcome of each (snippet, device) of ``todo`` under module ``modname``."""
    path = os.path.join(tmpdir, f"cases_{modname}.json")
    with open(path, "w") as fh:
        json.dump(todo, fh)
    env = dict(os.environ, GRADRS_GPU_ALLOW_SOFTWARE="1", PYTHONWARNINGS="ignore")
    results = [None] * len(todo)
    start = 0
    while start < len(todo):
        proc = subprocess.Popen(
            [sys.executable, os.path.abspath(__file__), "--child", modname, path, str(start)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
            cwd=tmpdir,
        )
        current, buf, deadline = start, b"", time.monotonic() + timeout + 30
        while True:
            ready, _, _ = select.select([proc.stdout], [], [], max(0.0, deadline - time.monotonic()))
            if not ready:  # a hang: kill the child, the case counts as a crash
                proc.kill()
                proc.wait()
                results[current] = {"kind": "crash", "why": "timeout"}
                break
            chunk = os.read(proc.stdout.fileno(), 1 << 16)
            if not chunk:
                proc.wait()
                err = proc.stderr.read().decode(errors="replace")[-400:]
                if current < len(todo) and results[current] is None:
                    results[current] = {"kind": "crash", "why": f"rc={proc.returncode}: {err}"}
                break
            buf += chunk
            *lines, buf = buf.split(b"\n")
            for line in lines:
                rec = json.loads(line)
                if rec.get("start"):
                    current, deadline = rec["i"], time.monotonic() + timeout
                else:
                    results[rec["i"]] = rec
        proc.stdout.close()
        proc.stderr.close()
        start = current + 1
    return results


def _norm_msg(msg):
    import re

    return re.sub(r"\btorch\b", "gradrs", msg.split("\nException raised from")[0]).strip()


def classify(g, t, flag):
    """The verdict for gradrs's outcome ``g`` against torch's ``t`` (None: no torch)."""
    if g["kind"] == "crash":
        return "crash"
    if g["kind"] == "raise" and g["type"] == "PanicException":
        return "panic"
    if t is None:
        return "ok"
    if t["kind"] == "raise" and g["kind"] == "ok":
        return "accepted"
    if t["kind"] == "ok" and g["kind"] == "raise":
        return "rejected"
    if t["kind"] == "ok":
        return "ok" if g["value"] == t["value"] else "wrong_value"
    if t["kind"] == "crash":
        return "ok"
    if t["type"] not in g["mro"]:
        return "wrong_type"
    if flag == MSG and _norm_msg(g["msg"]) != _norm_msg(t["msg"]):
        return "wrong_message"
    return "ok"


def expand(all_cases, gpu=True):
    """(snippet, flag, device) triples: snippets naming ``dev`` run on the GPU too."""
    out = []
    for code, flag in all_cases:
        out.append((code, flag, "cpu"))
        if gpu and "dev" in code:
            out.append((code, flag, "gpu"))
    return out


def tally(tmpdir, with_torch=True, gpu=True):
    """Run the corpus; returns (rows, counts), each row (snippet, device, verdict, g, t)."""
    from concurrent.futures import ThreadPoolExecutor

    runs = expand(cases(), gpu)
    uniq = sorted({c for c, _, _ in runs})
    with ThreadPoolExecutor(2) as ex:  # the two children run side by side
        gf = ex.submit(run_all, "gradrs", [(c, d) for c, _, d in runs], tmpdir)
        tf = ex.submit(run_all, "torch", [(c, "cpu") for c in uniq], tmpdir) if with_torch else None
        g = gf.result()
        t = dict(zip(uniq, tf.result())) if tf is not None else None
    rows, counts = [], {}
    for (code, flag, dev), gr in zip(runs, g):
        tr = t[code] if t is not None else None
        v = classify(gr, tr, flag)
        counts[v] = counts.get(v, 0) + 1
        rows.append((code, dev, v, gr, tr))
    return rows, counts


def main():
    import tempfile

    verbose = "-v" in sys.argv
    with tempfile.TemporaryDirectory() as d:
        try:
            import torch  # noqa: F401

            have = True
        except ImportError:
            have = False
        import gradrs

        rows, counts = tally(d, with_torch=have, gpu=gradrs.gpu.is_available())
    for code, dev, v, g, t in rows:
        if v != "ok" and (verbose or v in ("crash", "panic", "accepted", "wrong_value")):
            gs = g.get("type", g.get("why", g.get("value")))
            ts = t and t.get("type", t.get("value"))
            print(f"{v:13s} [{dev}] {code}\n    gradrs: {gs} {str(g.get('msg', ''))[:160]!r}\n    torch : {ts} {str((t or {}).get('msg', ''))[:160]!r}")
    print(json.dumps(counts, sort_keys=True), f"cases={len(rows)}")


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        child_main(sys.argv[2], sys.argv[3], int(sys.argv[4]))
    else:
        main()
