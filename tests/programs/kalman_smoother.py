"""A linear-Gaussian state-space model in float64, as tracking / econometrics notebooks write
it over torch instead of filterpy: a constant-velocity model, simulated with a seeded
torch.Generator, the Kalman filter (predict / update with torch.linalg.solve for the gain and
the Joseph form of the covariance update), the log-likelihood from the innovations
(torch.linalg.slogdet, cholesky_ex's info check), the Rauch-Tung-Striebel smoother, learning
the process and measurement noise scales by gradient ascent through the whole filter (Adam on
log-parameters), a batched filter over several series with torch.linalg.inv / @ broadcasting,
and the steady-state gain from iterating the Riccati recursion."""
import math

import torch

torch.set_printoptions(precision=5)
dtype = torch.float64
dt = 0.1
F_mat = torch.tensor([[1.0, dt, 0.0, 0.0], [0.0, 1.0, 0.0, 0.0], [0.0, 0.0, 1.0, dt], [0.0, 0.0, 0.0, 1.0]], dtype=dtype)
H = torch.tensor([[1.0, 0.0, 0.0, 0.0], [0.0, 0.0, 1.0, 0.0]], dtype=dtype)


def process_noise(q):
    G = torch.tensor([[0.5 * dt ** 2], [dt]], dtype=dtype)
    block = G @ G.T
    return q * torch.block_diag(block, block)


def simulate(T, q, r, gen):
    x = torch.tensor([0.0, 1.0, 0.0, 0.5], dtype=dtype)
    Q = process_noise(q)
    Lq = torch.linalg.cholesky(Q + 1e-12 * torch.eye(4, dtype=dtype))
    xs, zs = [], []
    for _ in range(T):
        x = F_mat @ x + Lq @ torch.randn(4, generator=gen, dtype=dtype)
        z = H @ x + math.sqrt(r) * torch.randn(2, generator=gen, dtype=dtype)
        xs.append(x)
        zs.append(z)
    return torch.stack(xs), torch.stack(zs)


def kalman_filter(zs, Q, R, x0, P0):
    x, P = x0, P0
    means, covs, pred_means, pred_covs = [], [], [], []
    loglik = torch.zeros((), dtype=dtype)
    I = torch.eye(x0.shape[0], dtype=dtype)
    for z in zs:
        x_pred = F_mat @ x
        P_pred = F_mat @ P @ F_mat.T + Q
        y = z - H @ x_pred
        S = H @ P_pred @ H.T + R
        K = torch.linalg.solve(S, H @ P_pred).T
        x = x_pred + K @ y
        IKH = I - K @ H
        P = IKH @ P_pred @ IKH.T + K @ R @ K.T
        sign, logdet = torch.linalg.slogdet(S)
        loglik = loglik - 0.5 * (y @ torch.linalg.solve(S, y) + logdet + len(z) * math.log(2 * math.pi))
        means.append(x)
        covs.append(P)
        pred_means.append(x_pred)
        pred_covs.append(P_pred)
    return torch.stack(means), torch.stack(covs), torch.stack(pred_means), torch.stack(pred_covs), loglik


def rts_smoother(means, covs, pred_means, pred_covs):
    T = means.shape[0]
    xs, Ps = [means[-1]], [covs[-1]]
    for t in range(T - 2, -1, -1):
        C = covs[t] @ F_mat.T @ torch.linalg.inv(pred_covs[t + 1])
        x = means[t] + C @ (xs[0] - pred_means[t + 1])
        P = covs[t] + C @ (Ps[0] - pred_covs[t + 1]) @ C.T
        xs.insert(0, x)
        Ps.insert(0, P)
    return torch.stack(xs), torch.stack(Ps)


gen = torch.Generator().manual_seed(42)
true_q, true_r = 0.5, 0.04
xs, zs = simulate(60, true_q, true_r, gen)
print("states", xs.shape, xs.dtype, "measurements", zs.shape)
print("first measurements", zs[:3])
print("process noise Q\n", process_noise(1.0))

x0 = torch.zeros(4, dtype=dtype)
P0 = torch.eye(4, dtype=dtype) * 10.0
means, covs, pm, pc, ll = kalman_filter(zs, process_noise(true_q), true_r * torch.eye(2, dtype=dtype), x0, P0)
print("log-likelihood at the true parameters", ll)
print("filtered final state", means[-1])
print("final covariance diagonal", covs[-1].diagonal())
L, info = torch.linalg.cholesky_ex(covs[-1])
print("covariance positive definite:", info.item() == 0, "symmetric:", torch.allclose(covs[-1], covs[-1].T))
sm, sP = rts_smoother(means, covs, pm, pc)
rmse = lambda est: ((est[:, [0, 2]] - xs[:, [0, 2]]) ** 2).sum(1).mean().sqrt()
print(f"position RMSE raw {((zs - xs[:, [0, 2]]) ** 2).sum(1).mean().sqrt():.5f} "
      f"filtered {rmse(means):.5f} smoothed {rmse(sm):.5f}")
print("smoother reduces variance:", bool((sP[:, 0, 0][:-1] <= covs[:, 0, 0][:-1] + 1e-12).all()))

# maximum likelihood for the noise scales by differentiating through the filter
log_q = torch.tensor(math.log(2.0), dtype=dtype, requires_grad=True)
log_r = torch.tensor(math.log(0.5), dtype=dtype, requires_grad=True)
opt = torch.optim.Adam([log_q, log_r], lr=0.1)
for it in range(30):
    opt.zero_grad()
    *_, ll = kalman_filter(zs, process_noise(log_q.exp()), log_r.exp() * torch.eye(2, dtype=dtype), x0, P0)
    (-ll).backward()
    if it % 10 == 0:
        print(f"iter {it:2d} nll {-ll.item():.6f} q {log_q.exp().item():.5f} r {log_r.exp().item():.5f} "
              f"grads {log_q.grad.item():.5f} {log_r.grad.item():.5f}")
    opt.step()
print(f"estimated q {log_q.exp().item():.4f} r {log_r.exp().item():.4f}")

# batched filter over independent series
B = 3
zsb = torch.stack([simulate(20, true_q, true_r, gen)[1] for _ in range(B)], 1)
x = torch.zeros(B, 4, dtype=dtype)
P = (torch.eye(4, dtype=dtype) * 10.0).expand(B, 4, 4)
Q, R = process_noise(true_q), true_r * torch.eye(2, dtype=dtype)
for z in zsb:
    x = x @ F_mat.T
    P = F_mat @ P @ F_mat.T + Q
    S = H @ P @ H.T + R
    K = P @ H.T @ torch.linalg.inv(S)
    x = x + (K @ (z - x @ H.T).unsqueeze(-1)).squeeze(-1)
    P = (torch.eye(4, dtype=dtype) - K @ H) @ P
print("batched states", x.shape, "covariances", P.shape)
print("batch covariances equal:", torch.allclose(P[0], P[1]) and torch.allclose(P[1], P[2]))

# steady-state gain
P = torch.eye(4, dtype=dtype)
for _ in range(500):
    P_pred = F_mat @ P @ F_mat.T + Q
    K = P_pred @ H.T @ torch.linalg.inv(H @ P_pred @ H.T + R)
    P = (torch.eye(4, dtype=dtype) - K @ H) @ P_pred
print("steady-state gain\n", K)
A = F_mat - K @ H @ F_mat
print("closed loop stable:", torch.linalg.matrix_power(A, 200).abs().max().item() < 1e-6,
      "spectral norm", torch.linalg.matrix_norm(A, ord=2))
