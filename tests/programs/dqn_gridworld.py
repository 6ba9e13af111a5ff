"""Deep Q-learning (the DQN tutorial's structure) on a tiny hand-written corridor environment:
replay memory of namedtuples (deque + random.sample), epsilon-greedy with an exponential decay,
policy/target networks with a soft update through state_dict, SmoothL1Loss on gathered Q values,
value clipping of the gradients, and a greedy evaluation."""
import math
import random
from collections import deque, namedtuple
from itertools import count

import torch
import torch.nn as nn
import torch.optim as optim

Transition = namedtuple("Transition", ("state", "action", "next_state", "reward"))  # noqa: PYI024


class Corridor:
    """Agent starts in cell 0 of a 1-d corridor and gets +1 at the last cell, -0.01 per step."""

    def __init__(self, n=6):
        self.n = n

    def reset(self):
        self.pos = 0
        return self._obs()

    def _obs(self):
        obs = torch.zeros(self.n)
        obs[self.pos] = 1.0
        return obs

    def step(self, action):
        self.pos = max(0, min(self.n - 1, self.pos + (1 if action == 1 else -1)))
        done = self.pos == self.n - 1
        return self._obs(), (1.0 if done else -0.01), done


class ReplayMemory:
    def __init__(self, capacity):
        self.memory = deque([], maxlen=capacity)

    def push(self, *args):
        self.memory.append(Transition(*args))

    def sample(self, batch_size):
        return random.sample(self.memory, batch_size)

    def __len__(self):
        return len(self.memory)


class DQN(nn.Module):
    def __init__(self, n_observations, n_actions):
        super().__init__()
        self.layer1 = nn.Linear(n_observations, 32)
        self.layer2 = nn.Linear(32, 32)
        self.layer3 = nn.Linear(32, n_actions)

    def forward(self, x):
        x = torch.relu(self.layer1(x))
        x = torch.relu(self.layer2(x))
        return self.layer3(x)


random.seed(0)
torch.manual_seed(0)
BATCH_SIZE, GAMMA, EPS_START, EPS_END, EPS_DECAY, TAU, LR = 32, 0.9, 0.9, 0.05, 200, 0.05, 1e-3
env = Corridor()
policy_net = DQN(env.n, 2)
target_net = DQN(env.n, 2)
target_net.load_state_dict(policy_net.state_dict())
optimizer = optim.AdamW(policy_net.parameters(), lr=LR, amsgrad=True)
memory = ReplayMemory(1000)
steps_done = 0


def select_action(state):
    global steps_done
    sample = random.random()
    eps_threshold = EPS_END + (EPS_START - EPS_END) * math.exp(-1.0 * steps_done / EPS_DECAY)
    steps_done += 1
    if sample > eps_threshold:
        with torch.no_grad():
            return policy_net(state).max(1).indices.view(1, 1)
    return torch.tensor([[random.randrange(2)]], dtype=torch.long)


def optimize_model():
    if len(memory) < BATCH_SIZE:
        return None
    transitions = memory.sample(BATCH_SIZE)
    batch = Transition(*zip(*transitions))
    non_final_mask = torch.tensor(tuple(map(lambda s: s is not None, batch.next_state)), dtype=torch.bool)
    non_final_next_states = torch.cat([s for s in batch.next_state if s is not None])
    state_batch = torch.cat(batch.state)
    action_batch = torch.cat(batch.action)
    reward_batch = torch.cat(batch.reward)
    state_action_values = policy_net(state_batch).gather(1, action_batch)
    next_state_values = torch.zeros(BATCH_SIZE)
    with torch.no_grad():
        next_state_values[non_final_mask] = target_net(non_final_next_states).max(1).values
    expected_state_action_values = (next_state_values * GAMMA) + reward_batch
    criterion = nn.SmoothL1Loss()
    loss = criterion(state_action_values, expected_state_action_values.unsqueeze(1))
    optimizer.zero_grad()
    loss.backward()
    torch.nn.utils.clip_grad_value_(policy_net.parameters(), 100)
    optimizer.step()
    return loss.item()


episode_lengths = []
for i_episode in range(40):
    state = env.reset().unsqueeze(0)
    losses = []
    for t in count():
        action = select_action(state)
        observation, reward, terminated = env.step(action.item())
        reward = torch.tensor([reward])
        next_state = None if terminated or t >= 30 else observation.unsqueeze(0)
        memory.push(state, action, next_state, reward)
        state = next_state
        loss = optimize_model()
        if loss is not None:
            losses.append(loss)
        target_net_state_dict = target_net.state_dict()
        policy_net_state_dict = policy_net.state_dict()
        for key in policy_net_state_dict:
            target_net_state_dict[key] = policy_net_state_dict[key] * TAU + target_net_state_dict[key] * (1 - TAU)
        target_net.load_state_dict(target_net_state_dict)
        if next_state is None:
            episode_lengths.append(t + 1)
            break
    if i_episode % 8 == 7:
        mean_loss = sum(losses) / max(len(losses), 1)
        print(f"episode {i_episode + 1} length {episode_lengths[-1]} mean loss {mean_loss:.5f} memory {len(memory)}")

print("steps done:", steps_done)
with torch.no_grad():
    states = torch.eye(env.n)
    q = policy_net(states)
    print("greedy actions:", q.argmax(1).tolist())
    print("Q values:\n", q.round(decimals=3))
state = env.reset()
for t in range(20):  # noqa: B007
    with torch.no_grad():
        action = policy_net(state.unsqueeze(0)).argmax().item()
    state, reward, done = env.step(action)
    if done:
        break
print("greedy episode length:", t + 1, "reached goal:", done)
