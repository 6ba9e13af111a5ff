"""PPO on a toy continuous-control task (move a point to the origin), as RL repositories write it:
a Gaussian policy (Normal / Independent, a tanh-squashed TransformedDistribution for the action
range), a value head, GAE computed backwards, advantage normalization, clipped surrogate with
entropy bonus, minibatches from BatchSampler(SubsetRandomSampler), clip_grad_norm_."""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.distributions import Independent, Normal, TransformedDistribution
from torch.distributions.transforms import AffineTransform, TanhTransform
from torch.utils.data import BatchSampler, SubsetRandomSampler

torch.manual_seed(0)
OBS, ACT, STEPS, ENVS = 2, 2, 16, 8


class PointEnv:
    def __init__(self, n):
        self.n = n
        self.state = torch.zeros(n, OBS)

    def reset(self):
        self.state = torch.rand(self.n, OBS) * 4 - 2
        return self.state.clone()

    def step(self, action):
        self.state = (self.state + 0.5 * action).clamp(-3, 3)
        dist = self.state.norm(dim=1)
        reward = -dist - 0.01 * action.pow(2).sum(1)
        done = dist < 0.2
        obs = self.state.clone()
        if done.any():
            self.state[done] = torch.rand(int(done.sum()), OBS) * 4 - 2
        return obs, reward, done


class ActorCritic(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(OBS, 32), nn.Tanh(), nn.Linear(32, 32), nn.Tanh())
        self.mu = nn.Linear(32, ACT)
        self.log_std = nn.Parameter(torch.full((ACT,), -0.5))
        self.v = nn.Linear(32, 1)
        for m in self.modules():
            if isinstance(m, nn.Linear):
                nn.init.orthogonal_(m.weight, gain=2 ** 0.5)
                nn.init.zeros_(m.bias)
        nn.init.orthogonal_(self.mu.weight, gain=0.01)

    def dist(self, obs):
        h = self.body(obs)
        return Independent(Normal(self.mu(h), self.log_std.exp()), 1), self.v(h).squeeze(-1)


def gae(rewards, values, dones, last_value, gamma=0.99, lam=0.95):
    adv = torch.zeros_like(rewards)
    last = torch.zeros(rewards.size(1))
    for t in reversed(range(rewards.size(0))):
        next_value = last_value if t == rewards.size(0) - 1 else values[t + 1]
        nonterminal = 1.0 - dones[t].float()
        delta = rewards[t] + gamma * next_value * nonterminal - values[t]
        last = delta + gamma * lam * nonterminal * last
        adv[t] = last
    return adv, adv + values


env = PointEnv(ENVS)
ac = ActorCritic()
print(ac)
opt = torch.optim.Adam(ac.parameters(), lr=3e-3, eps=1e-5)
obs = env.reset()
for update in range(6):
    buf = {k: [] for k in ("obs", "act", "logp", "rew", "done", "val")}
    with torch.no_grad():
        for _ in range(STEPS):
            d, v = ac.dist(obs)
            a = d.sample()
            next_obs, r, done = env.step(a.clamp(-1, 1))
            for k, val in zip(buf, (obs, a, d.log_prob(a), r, done, v)):
                buf[k].append(val)
            obs = next_obs
        last_v = ac.dist(obs)[1]
    data = {k: torch.stack(v) for k, v in buf.items()}
    adv, ret = gae(data["rew"], data["val"], data["done"], last_v)
    flat = {k: v.reshape(STEPS * ENVS, *v.shape[2:]) for k, v in data.items()}
    flat_adv, flat_ret = adv.reshape(-1), ret.reshape(-1)
    flat_adv = (flat_adv - flat_adv.mean()) / (flat_adv.std() + 1e-8)
    stats = []
    for epoch in range(3):
        for idx in BatchSampler(SubsetRandomSampler(range(STEPS * ENVS)), 32, drop_last=False):
            idx = torch.tensor(idx)
            d, v = ac.dist(flat["obs"][idx])
            logp = d.log_prob(flat["act"][idx])
            ratio = (logp - flat["logp"][idx]).exp()
            a_b = flat_adv[idx]
            pg = -torch.min(ratio * a_b, ratio.clamp(0.8, 1.2) * a_b).mean()
            vf = F.mse_loss(v, flat_ret[idx])
            ent = d.entropy().mean()
            loss = pg + 0.5 * vf - 0.01 * ent
            opt.zero_grad()
            loss.backward()
            gn = nn.utils.clip_grad_norm_(ac.parameters(), 0.5)
            opt.step()
            clipfrac = ((ratio - 1).abs() > 0.2).float().mean()
            stats.append(torch.stack([pg.detach(), vf.detach(), ent.detach(), clipfrac, gn]))
    s = torch.stack(stats).mean(0)
    ev = 1 - (flat_ret - flat["val"]).var() / flat_ret.var()
    print(f"update {update} return {data['rew'].sum(0).mean():.3f} pg {s[0]:.4f} vf {s[1]:.4f} "
          f"entropy {s[2]:.4f} clipfrac {s[3]:.3f} grad {s[4]:.3f} explained var {ev:.3f} "
          f"std {ac.log_std.exp().tolist()}")

# a tanh-squashed policy with an action range, as SAC-style code builds it
mu, std = torch.zeros(3, ACT), torch.full((3, ACT), 0.5)
squashed = TransformedDistribution(Normal(mu, std), [TanhTransform(cache_size=1), AffineTransform(0.0, 2.0)])
a = squashed.rsample()
print("squashed", a.abs().max() <= 2.0, squashed.log_prob(a).sum(-1).shape)
base = Normal(mu, std)
u = base.rsample()
corr = base.log_prob(u) - torch.log(2.0 * (1 - torch.tanh(u).pow(2)) + 1e-6)
print("manual log-prob shape", corr.sum(-1).shape)
ind = Independent(Normal(torch.zeros(ACT), torch.ones(ACT)), 1)
print(ind, ind.batch_shape, ind.event_shape, ind.entropy())
print(ind.log_prob(torch.tensor([0.5, -0.5])))
