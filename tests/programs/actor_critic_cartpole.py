"""pytorch/examples reinforcement_learning/actor_critic.py on a hand-written CartPole (gym's
classic-control equations, seeded numpy reset): a shared-body policy with action and value
heads, SavedAction namedtuples, Categorical sampling with log_prob, discounted returns
normalized with np.finfo(np.float32).eps.item(), smooth_l1_loss for the critic,
torch.stack(...).sum() of the losses, the running reward, then greedy evaluation with
torch.distributions' entropy / probs and an n-step advantage actor-critic variant with GAE."""
# ruff: noqa: PYI024, UP008, UP032 - written the way the example it imitates is written
import argparse
import math
from collections import namedtuple
from itertools import count

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
from torch.distributions import Categorical


class CartPoleEnv:
    """gym's CartPole-v1 dynamics (Euler integration), without rendering."""

    def __init__(self):
        self.gravity = 9.8
        self.masscart = 1.0
        self.masspole = 0.1
        self.total_mass = self.masspole + self.masscart
        self.length = 0.5
        self.polemass_length = self.masspole * self.length
        self.force_mag = 10.0
        self.tau = 0.02
        self.theta_threshold_radians = 12 * 2 * math.pi / 360
        self.x_threshold = 2.4
        self.np_random = np.random.RandomState(0)
        self.state = None
        self._max_episode_steps = 200
        self._elapsed = 0

    def seed(self, seed):
        self.np_random = np.random.RandomState(seed)

    def reset(self):
        self.state = self.np_random.uniform(low=-0.05, high=0.05, size=(4,))
        self._elapsed = 0
        return np.array(self.state, dtype=np.float32), {}

    def step(self, action):
        x, x_dot, theta, theta_dot = self.state
        force = self.force_mag if action == 1 else -self.force_mag
        costheta = math.cos(theta)
        sintheta = math.sin(theta)
        temp = (force + self.polemass_length * theta_dot ** 2 * sintheta) / self.total_mass
        thetaacc = (self.gravity * sintheta - costheta * temp) / (
            self.length * (4.0 / 3.0 - self.masspole * costheta ** 2 / self.total_mass))
        xacc = temp - self.polemass_length * thetaacc * costheta / self.total_mass
        x = x + self.tau * x_dot
        x_dot = x_dot + self.tau * xacc
        theta = theta + self.tau * theta_dot
        theta_dot = theta_dot + self.tau * thetaacc
        self.state = (x, x_dot, theta, theta_dot)
        self._elapsed += 1
        terminated = bool(x < -self.x_threshold or x > self.x_threshold
                          or theta < -self.theta_threshold_radians or theta > self.theta_threshold_radians)
        truncated = self._elapsed >= self._max_episode_steps
        return np.array(self.state, dtype=np.float32), 1.0, terminated, truncated, {}


parser = argparse.ArgumentParser(description='PyTorch actor-critic example')
parser.add_argument('--gamma', type=float, default=0.99, metavar='G',
                    help='discount factor (default: 0.99)')
parser.add_argument('--seed', type=int, default=543, metavar='N',
                    help='random seed (default: 543)')
parser.add_argument('--log-interval', type=int, default=10, metavar='N',
                    help='interval between training status logs (default: 10)')
args = parser.parse_args([])

env = CartPoleEnv()
env.seed(args.seed)
torch.manual_seed(args.seed)

SavedAction = namedtuple('SavedAction', ['log_prob', 'value'])


class Policy(nn.Module):
    """
    implements both actor and critic in one model
    """
    def __init__(self):
        super(Policy, self).__init__()
        self.affine1 = nn.Linear(4, 128)

        # actor's layer
        self.action_head = nn.Linear(128, 2)

        # critic's layer
        self.value_head = nn.Linear(128, 1)

        # action & reward buffer
        self.saved_actions = []
        self.rewards = []

    def forward(self, x):
        x = F.relu(self.affine1(x))
        action_prob = F.softmax(self.action_head(x), dim=-1)
        state_values = self.value_head(x)
        return action_prob, state_values


model = Policy()
optimizer = optim.Adam(model.parameters(), lr=3e-2)
eps = np.finfo(np.float32).eps.item()
print(model, eps)


def select_action(state):
    state = torch.from_numpy(state).float()
    probs, state_value = model(state)

    # create a categorical distribution over the list of probabilities of actions
    m = Categorical(probs)

    # and sample an action using the distribution
    action = m.sample()

    # save to action buffer
    model.saved_actions.append(SavedAction(m.log_prob(action), state_value))

    # the action to take (left or right)
    return action.item()


def finish_episode():
    """
    Training code. Calculates actor and critic loss and performs backprop.
    """
    R = 0
    saved_actions = model.saved_actions
    policy_losses = []  # list to save actor (policy) loss
    value_losses = []  # list to save critic (value) loss
    returns = []  # list to save the true values

    # calculate the true value using rewards returned from the environment
    for r in model.rewards[::-1]:
        # calculate the discounted value
        R = r + args.gamma * R
        returns.insert(0, R)

    returns = torch.tensor(returns)
    returns = (returns - returns.mean()) / (returns.std() + eps)

    for (log_prob, value), R in zip(saved_actions, returns):
        advantage = R - value.item()

        # calculate actor (policy) loss
        policy_losses.append(-log_prob * advantage)

        # calculate critic (value) loss using L1 smooth loss
        value_losses.append(F.smooth_l1_loss(value, torch.tensor([R])))

    # reset gradients
    optimizer.zero_grad()

    # sum up all the values of policy_losses and value_losses
    loss = torch.stack(policy_losses).sum() + torch.stack(value_losses).sum()

    # perform backprop
    loss.backward()
    optimizer.step()

    # reset rewards and action buffer
    del model.rewards[:]
    del model.saved_actions[:]
    return loss


running_reward = 10
lengths = []
for i_episode in count(1):
    state, _ = env.reset()
    ep_reward = 0
    for t in range(1, 10000):
        action = select_action(state)
        state, reward, done, _, _ = env.step(action)
        model.rewards.append(reward)
        ep_reward += reward
        if done:
            break
    running_reward = 0.05 * ep_reward + (1 - 0.05) * running_reward
    loss = finish_episode()
    lengths.append(t)
    if i_episode % args.log_interval == 0:
        print('Episode {}\tLast reward: {:.2f}\tAverage reward: {:.2f}'.format(
              i_episode, ep_reward, running_reward))
    if i_episode >= 30:
        break
print('episodes', len(lengths), 'loss is a tensor:', isinstance(loss, torch.Tensor), loss.shape, loss.grad_fn.name())

# greedy evaluation with the distribution's statistics
state, _ = env.reset()
with torch.no_grad():
    probs, value = model(torch.from_numpy(state))
    dist = Categorical(probs=probs)
    print('greedy action', probs.argmax().item() in (0, 1), dist.entropy().item() <= math.log(2) + 1e-6,
          dist.probs.shape, dist.logits.shape, value.shape)
    batch = torch.from_numpy(np.stack([env.reset()[0] for _ in range(5)]))
    bp, bv = model(batch)
    bd = Categorical(bp)
    print(bd.batch_shape, bd.event_shape, bd.sample((3,)).shape, bd.log_prob(torch.zeros(5)).shape, bv.squeeze(-1).shape)

# n-step A2C with GAE, written the way many RL repositories do it
torch.manual_seed(0)
env.seed(1)
ac = Policy()
opt = optim.RMSprop(ac.parameters(), lr=7e-4, alpha=0.99, eps=1e-5)
gamma, lam, n_steps = 0.99, 0.95, 16
state, _ = env.reset()
for update in range(4):
    log_probs, values, rewards, masks, entropies = [], [], [], [], []
    for _ in range(n_steps):
        probs, value = ac(torch.as_tensor(state))
        dist = Categorical(probs)
        action = dist.sample()
        next_state, reward, terminated, truncated, _ = env.step(action.item())
        log_probs.append(dist.log_prob(action))
        entropies.append(dist.entropy())
        values.append(value.squeeze(-1))
        rewards.append(torch.tensor(reward))
        masks.append(torch.tensor(0.0 if terminated else 1.0))
        state = env.reset()[0] if (terminated or truncated) else next_state
    with torch.no_grad():
        next_value = ac(torch.as_tensor(state))[1].squeeze(-1)
    values_t = torch.stack(values)
    advantages = torch.zeros(n_steps)
    gae = 0.0
    for t in reversed(range(n_steps)):
        nv = next_value if t == n_steps - 1 else values_t[t + 1].detach()
        delta = rewards[t] + gamma * nv * masks[t] - values_t[t].detach()
        gae = delta + gamma * lam * masks[t] * gae
        advantages[t] = gae
    returns = advantages + values_t.detach()
    actor_loss = -(torch.stack(log_probs) * advantages).mean()
    critic_loss = (returns - values_t).pow(2).mean()
    entropy = torch.stack(entropies).mean()
    loss = actor_loss + 0.5 * critic_loss - 0.01 * entropy
    opt.zero_grad()
    loss.backward()
    grad_norm = nn.utils.clip_grad_norm_(ac.parameters(), 0.5)
    opt.step()
    print(f"update {update} actor {actor_loss.item():.4f} critic {critic_loss.item():.4f} "
          f"entropy {entropy.item():.4f} grad_norm {grad_norm.item():.4f}")
print(advantages.shape, returns.requires_grad, values_t.requires_grad)
