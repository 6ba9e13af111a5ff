"""pytorch/examples mnist_hogwild on synthetic data: the model's parameters are moved to shared
memory (model.share_memory()), several torch.multiprocessing processes train it at the same
time without locks, and the parent evaluates the updated weights."""
import torch
import torch.multiprocessing as mp
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(20, 32)
        self.fc2 = nn.Linear(32, 4)

    def forward(self, x):
        return F.log_softmax(self.fc2(F.relu(self.fc1(x))), dim=1)


def make_data(seed):
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(512, 20, generator=g)
    y = (x[:, :4] * torch.tensor([1.0, -1.0, 0.5, 2.0])).argmax(1)
    return TensorDataset(x, y)


def train(rank, model, seed, queue):
    torch.manual_seed(seed + rank)
    loader = DataLoader(make_data(seed), batch_size=32, shuffle=True, num_workers=0)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.5)
    model.train()
    total = 0.0
    for _epoch in range(2):
        for data, target in loader:
            optimizer.zero_grad()
            loss = F.nll_loss(model(data), target)
            loss.backward()
            optimizer.step()
            total += loss.item()
    queue.put((rank, len(loader) * 2))


def test(model, dataset):
    model.eval()
    with torch.no_grad():
        x, y = dataset.tensors
        out = model(x)
        loss = F.nll_loss(out, y, reduction="sum").item() / len(y)
        correct = out.argmax(1).eq(y).sum().item()
    return loss, correct


if __name__ == "__main__":
    torch.manual_seed(1)
    mp.set_start_method("fork", force=True)
    model = Net()
    model.share_memory()  # gradients are allocated lazily, so they are not shared here
    print("parameters shared:", all(p.is_shared() for p in model.parameters()))
    print("sharing strategy:", mp.get_sharing_strategy() in mp.get_all_sharing_strategies())
    test_set = make_data(100)
    loss, correct = test(model, test_set)
    print(f"before: loss {loss:.4f} correct {correct}/512")
    before = model.fc1.weight.detach().clone()
    queue = mp.SimpleQueue()
    processes = []
    for rank in range(2):
        p = mp.Process(target=train, args=(rank, model, 7, queue))
        p.start()
        processes.append(p)
    for p in processes:
        p.join()
    steps = sorted(queue.get() for _ in range(2))
    print("workers finished:", steps, [p.exitcode for p in processes])
    print("shared weights changed in the parent:", not torch.equal(before, model.fc1.weight))
    loss_after, correct_after = test(model, test_set)
    # Hogwild updates race, so only the direction of the change is printed
    print(f"after: loss decreased {loss_after < loss} more correct {correct_after > correct}")
