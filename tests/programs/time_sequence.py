"""pytorch/examples time_sequence_prediction: two stacked LSTMCells in float64 learn sine waves,
trained with LBFGS (closure), then predict future values beyond the input."""
import numpy as np
import torch
import torch.nn as nn
import torch.optim as optim

np.random.seed(2)
T, L, N = 20, 200, 20
x = np.empty((N, L), "int64")
x[:] = np.array(range(L)) + np.random.randint(-4 * T, 4 * T, N).reshape(N, 1)
data = np.sin(x / 1.0 / T).astype("float64")


class Sequence(nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm1 = nn.LSTMCell(1, 24)
        self.lstm2 = nn.LSTMCell(24, 24)
        self.linear = nn.Linear(24, 1)

    def forward(self, input, future=0):
        outputs = []
        h_t = torch.zeros(input.size(0), 24, dtype=torch.double)
        c_t = torch.zeros(input.size(0), 24, dtype=torch.double)
        h_t2 = torch.zeros(input.size(0), 24, dtype=torch.double)
        c_t2 = torch.zeros(input.size(0), 24, dtype=torch.double)
        for input_t in input.split(1, dim=1):
            h_t, c_t = self.lstm1(input_t, (h_t, c_t))
            h_t2, c_t2 = self.lstm2(h_t, (h_t2, c_t2))
            output = self.linear(h_t2)
            outputs += [output]
        for _ in range(future):  # if we should predict the future
            h_t, c_t = self.lstm1(output, (h_t, c_t))
            h_t2, c_t2 = self.lstm2(h_t, (h_t2, c_t2))
            output = self.linear(h_t2)
            outputs += [output]
        outputs = torch.cat(outputs, dim=1)
        return outputs


np.random.seed(0)
torch.manual_seed(0)
input = torch.from_numpy(data[3:, :-1])
target = torch.from_numpy(data[3:, 1:])
test_input = torch.from_numpy(data[:3, :-1])
test_target = torch.from_numpy(data[:3, 1:])
print(input.dtype, tuple(input.shape), tuple(test_input.shape))
seq = Sequence()
seq.double()
print(seq)
criterion = nn.MSELoss()
optimizer = optim.LBFGS(seq.parameters(), lr=0.8, max_iter=8)
for i in range(3):
    print("STEP: ", i)
    losses = []

    def closure():
        optimizer.zero_grad()
        out = seq(input)
        loss = criterion(out, target)
        losses.append(loss.item())  # noqa: B023
        loss.backward()
        return loss

    optimizer.step(closure)
    print("closure calls:", len(losses), "first loss: %.6f" % losses[0],  # noqa: UP031
          "last loss: %.6f" % losses[-1])  # noqa: UP031
    with torch.no_grad():
        future = 100
        pred = seq(test_input, future=future)
        loss = criterion(pred[:, :-future], test_target)
        print("test loss:", loss.item())
        y = pred.detach().numpy()
    print("prediction", y.shape, y.dtype, np.round(y[0, -3:], 4))
state = optimizer.state[optimizer._params[0]]
print(sorted(state.keys()), state["func_evals"], state["n_iter"])
