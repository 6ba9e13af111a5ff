"""The 'NLP from scratch' tutorials: classifying names with a character-level RNN (unicodeToAscii,
one-hot letterToTensor / lineToTensor, an RNN module built from nn.Linear over torch.cat of input
and hidden, LogSoftmax + NLLLoss, the manual parameter update p.data.add_(p.grad.data,
alpha=-lr), categoryFromOutput with topk, a confusion matrix, predict with topk(3)), then
generating names with a category-conditioned RNN (dropout, inputTensor / targetTensor, the loss
summed over characters, sampling with topk until EOS)."""
import math
import random
import string
import time
import unicodedata

import torch
import torch.nn as nn

random.seed(0)
torch.manual_seed(0)

all_letters = string.ascii_letters + " .,;'"
n_letters = len(all_letters)


def unicodeToAscii(s):
    return ''.join(
        c for c in unicodedata.normalize('NFD', s)
        if unicodedata.category(c) != 'Mn'
        and c in all_letters
    )


print(unicodeToAscii('Ślusàrski'), n_letters)

category_lines = {
    'English': ['Smith', 'Johnson', 'Williams', 'Brown', 'Taylor', 'Walker', 'Wright', 'Thompson', 'White', 'Hughes'],
    'Italian': ['Rossi', 'Russo', 'Ferrari', 'Esposito', 'Bianchi', 'Romano', 'Colombo', 'Ricci', 'Marino', 'Greco'],
    'Japanese': ['Satō', 'Suzuki', 'Takahashi', 'Tanaka', 'Watanabe', 'Itō', 'Yamamoto', 'Nakamura', 'Kobayashi', 'Katō'],
    'Polish': ['Nowak', 'Kowalski', 'Wiśniewski', 'Wójcik', 'Kowalczyk', 'Kamiński', 'Lewandowski', 'Zieliński', 'Szymański', 'Woźniak'],
}
category_lines = {k: [unicodeToAscii(n) for n in v] for k, v in category_lines.items()}
all_categories = list(category_lines.keys())
n_categories = len(all_categories)
print(category_lines['Japanese'][:5], category_lines['Polish'][2])


def letterToIndex(letter):
    return all_letters.find(letter)


def letterToTensor(letter):
    tensor = torch.zeros(1, n_letters)
    tensor[0][letterToIndex(letter)] = 1
    return tensor


def lineToTensor(line):
    tensor = torch.zeros(len(line), 1, n_letters)
    for li, letter in enumerate(line):
        tensor[li][0][letterToIndex(letter)] = 1
    return tensor


print(letterToTensor('J'))
print(lineToTensor('Jones').size())


class RNN(nn.Module):
    def __init__(self, input_size, hidden_size, output_size):
        super(RNN, self).__init__()
        self.hidden_size = hidden_size
        self.i2h = nn.Linear(input_size + hidden_size, hidden_size)
        self.h2o = nn.Linear(input_size + hidden_size, output_size)
        self.softmax = nn.LogSoftmax(dim=1)

    def forward(self, input, hidden):
        combined = torch.cat((input, hidden), 1)
        hidden = self.i2h(combined)
        output = self.h2o(combined)
        output = self.softmax(output)
        return output, hidden

    def initHidden(self):
        return torch.zeros(1, self.hidden_size)


n_hidden = 64
rnn = RNN(n_letters, n_hidden, n_categories)
print(rnn)
input = letterToTensor('A')
hidden = torch.zeros(1, n_hidden)
output, next_hidden = rnn(input, hidden)
print(output.shape, output.grad_fn, next_hidden.shape)


def categoryFromOutput(output):
    top_n, top_i = output.topk(1)
    category_i = top_i[0].item()
    return all_categories[category_i], category_i


def randomChoice(l):
    return l[random.randint(0, len(l) - 1)]


def randomTrainingExample():
    category = randomChoice(all_categories)
    line = randomChoice(category_lines[category])
    category_tensor = torch.tensor([all_categories.index(category)], dtype=torch.long)
    line_tensor = lineToTensor(line)
    return category, line, category_tensor, line_tensor


for i in range(3):
    category, line, category_tensor, line_tensor = randomTrainingExample()
    print('category =', category, '/ line =', line, category_tensor)

criterion = nn.NLLLoss()
learning_rate = 0.005


def train(category_tensor, line_tensor):
    hidden = rnn.initHidden()
    rnn.zero_grad()
    for i in range(line_tensor.size()[0]):
        output, hidden = rnn(line_tensor[i], hidden)
    loss = criterion(output, category_tensor)
    loss.backward()
    for p in rnn.parameters():
        p.data.add_(p.grad.data, alpha=-learning_rate)
    return output, loss.item()


def timeSince(since):
    now = time.time()
    s = now - since
    m = math.floor(s / 60)
    s -= m * 60
    return '%dm' % m


n_iters = 1500
print_every = 500
current_loss = 0
all_losses = []
start = time.time()
for iter in range(1, n_iters + 1):
    category, line, category_tensor, line_tensor = randomTrainingExample()
    output, loss = train(category_tensor, line_tensor)
    current_loss += loss
    if iter % print_every == 0:
        guess, guess_i = categoryFromOutput(output)
        correct = '✓' if guess == category else '✗ (%s)' % category
        print('%d %d%% (%s) %.4f %s / %s %s' % (iter, iter / n_iters * 100, timeSince(start), loss, line, guess, correct))
    if iter % 100 == 0:
        all_losses.append(current_loss / 100)
        current_loss = 0
print(len(all_losses), all_losses[-1] < all_losses[0])

confusion = torch.zeros(n_categories, n_categories)


def evaluate(line_tensor):
    hidden = rnn.initHidden()
    for i in range(line_tensor.size()[0]):
        output, hidden = rnn(line_tensor[i], hidden)
    return output


for i in range(200):
    category, line, category_tensor, line_tensor = randomTrainingExample()
    output = evaluate(line_tensor)
    guess, guess_i = categoryFromOutput(output)
    category_i = all_categories.index(category)
    confusion[category_i][guess_i] += 1
for i in range(n_categories):
    confusion[i] = confusion[i] / confusion[i].sum()
print(confusion.sum(1))
print("diagonal mean > 0.5:", confusion.diag().mean().item() > 0.5)


def predict(input_line, n_predictions=3):
    print('\n> %s' % input_line)
    with torch.no_grad():
        output = evaluate(lineToTensor(input_line))
        topv, topi = output.topk(n_predictions, 1, True)
        predictions = []
        for i in range(n_predictions):
            value = topv[0][i].item()
            category_index = topi[0][i].item()
            print('(%.2f) %s' % (value, all_categories[category_index]))
            predictions.append([value, all_categories[category_index]])


predict('Dovesky')
predict('Satoshi')

# --- generating names
n_categories_g = n_categories


class GenRNN(nn.Module):
    def __init__(self, input_size, hidden_size, output_size):
        super(GenRNN, self).__init__()
        self.hidden_size = hidden_size
        self.i2h = nn.Linear(n_categories_g + input_size + hidden_size, hidden_size)
        self.i2o = nn.Linear(n_categories_g + input_size + hidden_size, output_size)
        self.o2o = nn.Linear(hidden_size + output_size, output_size)
        self.dropout = nn.Dropout(0.1)
        self.softmax = nn.LogSoftmax(dim=1)

    def forward(self, category, input, hidden):
        input_combined = torch.cat((category, input, hidden), 1)
        hidden = self.i2h(input_combined)
        output = self.i2o(input_combined)
        output_combined = torch.cat((hidden, output), 1)
        output = self.o2o(output_combined)
        output = self.dropout(output)
        output = self.softmax(output)
        return output, hidden

    def initHidden(self):
        return torch.zeros(1, self.hidden_size)


n_letters_g = n_letters + 1  # plus EOS


def categoryTensor(category):
    li = all_categories.index(category)
    tensor = torch.zeros(1, n_categories_g)
    tensor[0][li] = 1
    return tensor


def inputTensor(line):
    tensor = torch.zeros(len(line), 1, n_letters_g)
    for li in range(len(line)):
        letter = line[li]
        tensor[li][0][all_letters.find(letter)] = 1
    return tensor


def targetTensor(line):
    letter_indexes = [all_letters.find(line[li]) for li in range(1, len(line))]
    letter_indexes.append(n_letters_g - 1)
    return torch.LongTensor(letter_indexes)


print(targetTensor('Abe'), inputTensor('Abe').shape)
gen = GenRNN(n_letters_g, 64, n_letters_g)
gcriterion = nn.NLLLoss()


def train_gen(category_tensor, input_line_tensor, target_line_tensor):
    target_line_tensor.unsqueeze_(-1)
    hidden = gen.initHidden()
    gen.zero_grad()
    loss = torch.Tensor([0])
    for i in range(input_line_tensor.size(0)):
        output, hidden = gen(category_tensor, input_line_tensor[i], hidden)
        l = gcriterion(output, target_line_tensor[i])
        loss += l
    loss.backward()
    for p in gen.parameters():
        p.data.add_(p.grad.data, alpha=-0.0005)
    return output, loss.item() / input_line_tensor.size(0)


for it in range(1, 601):
    category = randomChoice(all_categories)
    line = randomChoice(category_lines[category])
    output, loss = train_gen(categoryTensor(category), inputTensor(line), targetTensor(line))
    if it % 200 == 0:
        print('gen iter %d loss %.4f' % (it, loss))

max_length = 10


def sample(category, start_letter='A'):
    with torch.no_grad():
        category_tensor = categoryTensor(category)
        input = inputTensor(start_letter)
        hidden = gen.initHidden()
        output_name = start_letter
        for i in range(max_length):
            output, hidden = gen(category_tensor, input[0], hidden)
            topv, topi = output.topk(1)
            topi = topi[0][0]
            if topi == n_letters_g - 1:
                break
            else:
                letter = all_letters[topi]
                output_name += letter
            input = inputTensor(letter)
        return output_name


gen.eval()
for start in 'RIS':
    print(len(sample('Italian', start)) >= 1)
print(type(torch.Tensor([0])), torch.Tensor([0]).dtype, torch.LongTensor([1, 2]).dtype)
