"""REINFORCE (pytorch/examples reinforcement_learning style) on a hand-written corridor environment, with torch.distributions.Categorical."""
# ruff: noqa: B007, UP008, UP032 - written the way the tutorial it imitates is written
import argparse

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
from torch.distributions import Categorical

parser = argparse.ArgumentParser(description='PyTorch REINFORCE example')
parser.add_argument('--gamma', type=float, default=0.99, metavar='G')
parser.add_argument('--seed', type=int, default=543, metavar='N')
parser.add_argument('--log-interval', type=int, default=20, metavar='N')
args = parser.parse_args()


class Corridor:
    """Start in the middle of a corridor of 7 cells; reward 1 at the right end, -1 at the left."""

    def __init__(self, n=7, seed=0):
        self.n, self.rng = n, np.random.RandomState(seed)

    def reset(self):
        self.pos = self.n // 2
        return self._obs()

    def _obs(self):
        obs = np.zeros(self.n, dtype=np.float32)
        obs[self.pos] = 1.0
        return obs

    def step(self, action):
        if self.rng.rand() < 0.1:  # a slippery floor
            action = 1 - action
        self.pos += 1 if action == 1 else -1
        done = self.pos in (0, self.n - 1)
        reward = (1.0 if self.pos == self.n - 1 else -1.0) if done else -0.01
        return self._obs(), reward, done


env = Corridor(seed=args.seed)
torch.manual_seed(args.seed)


class Policy(nn.Module):
    def __init__(self):
        super(Policy, self).__init__()
        self.affine1 = nn.Linear(7, 32)
        self.dropout = nn.Dropout(p=0.6)
        self.affine2 = nn.Linear(32, 2)
        self.saved_log_probs = []
        self.rewards = []

    def forward(self, x):
        x = self.affine1(x)
        x = self.dropout(x)
        x = F.relu(x)
        action_scores = self.affine2(x)
        return F.softmax(action_scores, dim=1)


policy = Policy()
optimizer = optim.Adam(policy.parameters(), lr=1e-2)
eps = np.finfo(np.float32).eps.item()


def select_action(state):
    state = torch.from_numpy(state).float().unsqueeze(0)
    probs = policy(state)
    m = Categorical(probs)
    action = m.sample()
    policy.saved_log_probs.append(m.log_prob(action))
    return action.item()


def finish_episode():
    R = 0
    policy_loss = []
    returns = []
    for r in policy.rewards[::-1]:
        R = r + args.gamma * R
        returns.insert(0, R)
    returns = torch.tensor(returns)
    returns = (returns - returns.mean()) / (returns.std() + eps)
    for log_prob, R in zip(policy.saved_log_probs, returns):
        policy_loss.append(-log_prob * R)
    optimizer.zero_grad()
    policy_loss = torch.cat(policy_loss).sum()
    policy_loss.backward()
    optimizer.step()
    del policy.rewards[:]
    del policy.saved_log_probs[:]


def main():
    running_reward = 0
    wins = []
    for i_episode in range(1, 101):
        state, ep_reward = env.reset(), 0
        for t in range(1, 50):
            action = select_action(state)
            state, reward, done = env.step(action)
            policy.rewards.append(reward)
            ep_reward += reward
            if done:
                break
        wins.append(reward > 0)
        running_reward = 0.05 * ep_reward + (1 - 0.05) * running_reward
        if len(policy.rewards) > 1:
            finish_episode()
        else:
            del policy.rewards[:]
            del policy.saved_log_probs[:]
        if i_episode % args.log_interval == 0:
            print('Episode {}\tLast reward: {:.2f}\tAverage reward: {:.2f}'.format(
                i_episode, ep_reward, running_reward))
    print("learned to go right:", sum(wins[-30:]) > 20)


main()
dist = Categorical(probs=torch.tensor([0.25, 0.25, 0.5]))
print(dist)
print(dist.entropy(), dist.log_prob(torch.tensor(2)), dist.probs, dist.logits)
print(Categorical(logits=torch.zeros(2, 4)).batch_shape, dist.event_shape, dist.sample((3,)).shape)
normal = torch.distributions.Normal(torch.tensor([0.0]), torch.tensor([1.0]))
print(normal, normal.log_prob(torch.tensor([0.5])), normal.rsample((2,)).shape)
print(torch.distributions.kl_divergence(normal, torch.distributions.Normal(1.0, 2.0)))
