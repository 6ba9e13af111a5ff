"""Soft Actor-Critic on a toy 1-D "pendulum" written in numpy (the CleanRL / spinning-up layout):
a squashed Gaussian policy (Normal.rsample, tanh and the log-prob correction, and the same through
TransformedDistribution(Independent(Normal), TanhTransform)), twin Q networks with target copies
updated by Polyak averaging (lerp_ and the mul_/add_ form), automatic entropy tuning through
log_alpha, and a replay buffer of numpy arrays."""
import copy

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.distributions import Independent, Normal, TanhTransform, TransformedDistribution

torch.manual_seed(0)
np.random.seed(0)
LOG_STD_MIN, LOG_STD_MAX = -5, 2


class ToyEnv:
    """state (angle, velocity); reward -(angle^2 + 0.1 vel^2 + 0.01 a^2)"""

    def reset(self):
        self.s = np.random.uniform(-1, 1, size=2).astype(np.float32)
        self.t = 0
        return self.s.copy()

    def step(self, a):
        th, v = self.s
        v = np.clip(v + 0.1 * (-np.sin(th) + 2.0 * float(a[0])), -2, 2)
        th = th + 0.1 * v
        self.s = np.array([th, v], dtype=np.float32)
        self.t += 1
        r = -(th ** 2 + 0.1 * v ** 2 + 0.01 * float(a[0]) ** 2)
        return self.s.copy(), float(r), self.t >= 20


class ReplayBuffer:
    def __init__(self, size, obs_dim, act_dim):
        self.obs = np.zeros((size, obs_dim), np.float32)
        self.next_obs = np.zeros((size, obs_dim), np.float32)
        self.act = np.zeros((size, act_dim), np.float32)
        self.rew = np.zeros(size, np.float32)
        self.done = np.zeros(size, np.float32)
        self.ptr, self.size, self.max = 0, 0, size

    def add(self, o, a, r, o2, d):
        self.obs[self.ptr], self.act[self.ptr], self.rew[self.ptr] = o, a, r
        self.next_obs[self.ptr], self.done[self.ptr] = o2, d
        self.ptr = (self.ptr + 1) % self.max
        self.size = min(self.size + 1, self.max)

    def sample(self, n):
        idx = np.random.randint(0, self.size, size=n)
        return {k: torch.as_tensor(v[idx]) for k, v in
                dict(obs=self.obs, act=self.act, rew=self.rew, obs2=self.next_obs, done=self.done).items()}


class SoftQ(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(3, 32), nn.ReLU(), nn.Linear(32, 32), nn.ReLU(), nn.Linear(32, 1))

    def forward(self, o, a):
        return self.net(torch.cat([o, a], 1)).squeeze(-1)


class Actor(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Sequential(nn.Linear(2, 32), nn.ReLU(), nn.Linear(32, 32), nn.ReLU())
        self.fc_mean = nn.Linear(32, 1)
        self.fc_logstd = nn.Linear(32, 1)

    def forward(self, x):
        h = self.fc(x)
        mean = self.fc_mean(h)
        log_std = torch.tanh(self.fc_logstd(h))
        log_std = LOG_STD_MIN + 0.5 * (LOG_STD_MAX - LOG_STD_MIN) * (log_std + 1)
        return mean, log_std

    def get_action(self, x):
        mean, log_std = self(x)
        std = log_std.exp()
        normal = Normal(mean, std)
        x_t = normal.rsample()
        y_t = torch.tanh(x_t)
        log_prob = normal.log_prob(x_t)
        log_prob -= torch.log(1 - y_t.pow(2) + 1e-6)
        return y_t, log_prob.sum(1, keepdim=True), torch.tanh(mean)


env = ToyEnv()
actor, qf1, qf2 = Actor(), SoftQ(), SoftQ()
qf1_target, qf2_target = copy.deepcopy(qf1), copy.deepcopy(qf2)
for p in list(qf1_target.parameters()) + list(qf2_target.parameters()):
    p.requires_grad = False
q_optimizer = torch.optim.Adam(list(qf1.parameters()) + list(qf2.parameters()), lr=1e-3)
actor_optimizer = torch.optim.Adam(actor.parameters(), lr=3e-4)
target_entropy = -1.0
log_alpha = torch.zeros(1, requires_grad=True)
alpha = log_alpha.exp().item()
a_optimizer = torch.optim.Adam([log_alpha], lr=1e-3)
rb = ReplayBuffer(2000, 2, 1)
gamma, tau = 0.99, 0.05

obs = env.reset()
ep_ret, returns = 0.0, []
for global_step in range(600):
    if global_step < 100:
        action = np.random.uniform(-1, 1, size=1).astype(np.float32)
    else:
        with torch.no_grad():
            action, _, _ = actor.get_action(torch.as_tensor(obs).unsqueeze(0))
        action = action[0].numpy()
    next_obs, reward, done = env.step(action)
    rb.add(obs, action, reward, next_obs, float(done))
    ep_ret += reward
    obs = next_obs
    if done:
        returns.append(ep_ret)
        obs, ep_ret = env.reset(), 0.0
    if global_step >= 100:
        data = rb.sample(64)
        with torch.no_grad():
            next_a, next_logp, _ = actor.get_action(data["obs2"])
            min_q_next = torch.min(qf1_target(data["obs2"], next_a), qf2_target(data["obs2"], next_a)) \
                - alpha * next_logp.squeeze(-1)
            next_q = data["rew"] + (1 - data["done"]) * gamma * min_q_next
        qf_loss = F.mse_loss(qf1(data["obs"], data["act"]), next_q) + F.mse_loss(qf2(data["obs"], data["act"]), next_q)
        q_optimizer.zero_grad()
        qf_loss.backward()
        q_optimizer.step()
        if global_step % 2 == 0:
            pi, log_pi, _ = actor.get_action(data["obs"])
            min_q_pi = torch.min(qf1(data["obs"], pi), qf2(data["obs"], pi))
            actor_loss = ((alpha * log_pi.squeeze(-1)) - min_q_pi).mean()
            actor_optimizer.zero_grad()
            actor_loss.backward()
            actor_optimizer.step()
            with torch.no_grad():
                _, log_pi, _ = actor.get_action(data["obs"])
            alpha_loss = (-log_alpha.exp() * (log_pi + target_entropy)).mean()
            a_optimizer.zero_grad()
            alpha_loss.backward()
            a_optimizer.step()
            alpha = log_alpha.exp().item()
        with torch.no_grad():
            for param, target_param in zip(qf1.parameters(), qf1_target.parameters()):
                target_param.data.copy_(tau * param.data + (1 - tau) * target_param.data)
            for param, target_param in zip(qf2.parameters(), qf2_target.parameters()):
                target_param.lerp_(param, tau)
    if global_step % 100 == 99 and global_step >= 199:
        print(f"step {global_step + 1} qf_loss {qf_loss.item():.4f} actor_loss {actor_loss.item():.4f} "
              f"alpha {alpha:.4f} episodes {len(returns)} mean return {np.mean(returns[-5:]):.3f}")

print("targets lag the online nets:", not torch.equal(qf1.net[0].weight, qf1_target.net[0].weight))
print("target params frozen:", all(not p.requires_grad for p in qf1_target.parameters()))

# the squashed Gaussian through torch.distributions agrees with the hand-written correction
mean = torch.tensor([[0.3], [-1.2]])
std = torch.tensor([[0.5], [0.2]])
dist = TransformedDistribution(Independent(Normal(mean, std), 1), [TanhTransform(cache_size=1)])
u = torch.tensor([[0.1], [-0.9]])
a = torch.tanh(u)
manual = (Normal(mean, std).log_prob(u) - torch.log(1 - a.pow(2))).sum(1)
print("tanh-normal log_prob:", dist.log_prob(a), manual)
print("dist:", dist.batch_shape, dist.event_shape, dist.support)
s = dist.rsample((4,))
print("rsample:", s.shape, bool((s.abs() < 1).all()), s.requires_grad)
print("stable log-det:", TanhTransform().log_abs_det_jacobian(u, a).squeeze(-1),
      2.0 * (torch.log(torch.tensor(2.0)) - u - F.softplus(-2.0 * u)).squeeze(-1))
