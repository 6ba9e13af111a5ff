"""A Hugging Face Trainer-style masked-language-model pretraining loop over a tiny BERT written in
plain torch (the shape of transformers' modeling_bert.py): get_extended_attention_mask with
torch.finfo(dtype).min, an MLM head whose decoder weight is tied to the word embeddings,
DataCollatorForLanguageModeling's 80/10/10 masking (bernoulli on a probability matrix,
special-token mask, labels -100), AdamW with the no_decay parameter groups,
get_linear_schedule_with_warmup as a LambdaLR, gradient accumulation, clip_grad_norm_,
and the trainer's logging dicts."""
import math
from dataclasses import dataclass
from typing import Optional

import torch
from torch import nn
from torch.optim import AdamW
from torch.optim.lr_scheduler import LambdaLR
from torch.utils.data import DataLoader, Dataset


def get_linear_schedule_with_warmup(optimizer, num_warmup_steps, num_training_steps, last_epoch=-1):
    def lr_lambda(current_step: int):
        if current_step < num_warmup_steps:
            return float(current_step) / float(max(1, num_warmup_steps))
        return max(
            0.0, float(num_training_steps - current_step) / float(max(1, num_training_steps - num_warmup_steps))
        )

    return LambdaLR(optimizer, lr_lambda, last_epoch)


@dataclass
class BertConfig:
    vocab_size: int = 40
    hidden_size: int = 32
    num_hidden_layers: int = 2
    num_attention_heads: int = 4
    intermediate_size: int = 64
    max_position_embeddings: int = 24
    type_vocab_size: int = 2
    layer_norm_eps: float = 1e-12
    hidden_dropout_prob: float = 0.0
    attention_probs_dropout_prob: float = 0.0
    initializer_range: float = 0.02
    pad_token_id: int = 0


class BertEmbeddings(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.word_embeddings = nn.Embedding(config.vocab_size, config.hidden_size, padding_idx=config.pad_token_id)
        self.position_embeddings = nn.Embedding(config.max_position_embeddings, config.hidden_size)
        self.token_type_embeddings = nn.Embedding(config.type_vocab_size, config.hidden_size)
        self.LayerNorm = nn.LayerNorm(config.hidden_size, eps=config.layer_norm_eps)
        self.dropout = nn.Dropout(config.hidden_dropout_prob)
        self.register_buffer(
            "position_ids", torch.arange(config.max_position_embeddings).expand((1, -1)), persistent=False
        )
        self.register_buffer(
            "token_type_ids", torch.zeros(self.position_ids.size(), dtype=torch.long), persistent=False
        )

    def forward(self, input_ids, token_type_ids=None):
        seq_length = input_ids.size(1)
        position_ids = self.position_ids[:, :seq_length]
        if token_type_ids is None:
            buffered_token_type_ids = self.token_type_ids[:, :seq_length]
            token_type_ids = buffered_token_type_ids.expand(input_ids.size(0), seq_length)
        embeddings = self.word_embeddings(input_ids) + self.token_type_embeddings(token_type_ids)
        embeddings += self.position_embeddings(position_ids)
        return self.dropout(self.LayerNorm(embeddings))


class BertSelfAttention(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.num_attention_heads = config.num_attention_heads
        self.attention_head_size = int(config.hidden_size / config.num_attention_heads)
        self.all_head_size = self.num_attention_heads * self.attention_head_size
        self.query = nn.Linear(config.hidden_size, self.all_head_size)
        self.key = nn.Linear(config.hidden_size, self.all_head_size)
        self.value = nn.Linear(config.hidden_size, self.all_head_size)
        self.dropout = nn.Dropout(config.attention_probs_dropout_prob)

    def transpose_for_scores(self, x: torch.Tensor) -> torch.Tensor:
        new_x_shape = x.size()[:-1] + (self.num_attention_heads, self.attention_head_size)
        x = x.view(new_x_shape)
        return x.permute(0, 2, 1, 3)

    def forward(self, hidden_states, attention_mask=None, output_attentions=False):
        query_layer = self.transpose_for_scores(self.query(hidden_states))
        key_layer = self.transpose_for_scores(self.key(hidden_states))
        value_layer = self.transpose_for_scores(self.value(hidden_states))
        attention_scores = torch.matmul(query_layer, key_layer.transpose(-1, -2))
        attention_scores = attention_scores / math.sqrt(self.attention_head_size)
        if attention_mask is not None:
            attention_scores = attention_scores + attention_mask
        attention_probs = nn.functional.softmax(attention_scores, dim=-1)
        attention_probs = self.dropout(attention_probs)
        context_layer = torch.matmul(attention_probs, value_layer)
        context_layer = context_layer.permute(0, 2, 1, 3).contiguous()
        new_context_layer_shape = context_layer.size()[:-2] + (self.all_head_size,)
        context_layer = context_layer.view(new_context_layer_shape)
        return (context_layer, attention_probs) if output_attentions else (context_layer,)


class BertLayer(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.attention = BertSelfAttention(config)
        self.attn_out = nn.Linear(config.hidden_size, config.hidden_size)
        self.attn_norm = nn.LayerNorm(config.hidden_size, eps=config.layer_norm_eps)
        self.intermediate = nn.Linear(config.hidden_size, config.intermediate_size)
        self.output = nn.Linear(config.intermediate_size, config.hidden_size)
        self.out_norm = nn.LayerNorm(config.hidden_size, eps=config.layer_norm_eps)

    def forward(self, hidden_states, attention_mask=None, output_attentions=False):
        outputs = self.attention(hidden_states, attention_mask, output_attentions)
        attention_output = self.attn_norm(self.attn_out(outputs[0]) + hidden_states)
        intermediate = nn.functional.gelu(self.intermediate(attention_output))
        layer_output = self.out_norm(self.output(intermediate) + attention_output)
        return (layer_output,) + outputs[1:]


class BertForMaskedLM(nn.Module):
    _tied_weights_keys = ["cls.decoder.weight"]

    def __init__(self, config):
        super().__init__()
        self.config = config
        self.embeddings = BertEmbeddings(config)
        self.layer = nn.ModuleList([BertLayer(config) for _ in range(config.num_hidden_layers)])
        self.cls = nn.ModuleDict({
            "transform": nn.Linear(config.hidden_size, config.hidden_size),
            "norm": nn.LayerNorm(config.hidden_size, eps=config.layer_norm_eps),
        })
        self.cls.decoder = nn.Linear(config.hidden_size, config.vocab_size, bias=False)
        self.cls.bias = nn.Parameter(torch.zeros(config.vocab_size))
        self.apply(self._init_weights)
        self.tie_weights()

    def _init_weights(self, module):
        if isinstance(module, nn.Linear):
            module.weight.data.normal_(mean=0.0, std=self.config.initializer_range)
            if module.bias is not None:
                module.bias.data.zero_()
        elif isinstance(module, nn.Embedding):
            module.weight.data.normal_(mean=0.0, std=self.config.initializer_range)
            if module.padding_idx is not None:
                module.weight.data[module.padding_idx].zero_()
        elif isinstance(module, nn.LayerNorm):
            module.bias.data.zero_()
            module.weight.data.fill_(1.0)

    def tie_weights(self):
        self.cls.decoder.weight = self.embeddings.word_embeddings.weight

    def get_extended_attention_mask(self, attention_mask, dtype=torch.float32):
        extended_attention_mask = attention_mask[:, None, None, :]
        extended_attention_mask = extended_attention_mask.to(dtype=dtype)
        extended_attention_mask = (1.0 - extended_attention_mask) * torch.finfo(dtype).min
        return extended_attention_mask

    def forward(self, input_ids, attention_mask=None, labels=None, output_attentions=False):
        if attention_mask is None:
            attention_mask = torch.ones_like(input_ids)
        ext = self.get_extended_attention_mask(attention_mask)
        hidden = self.embeddings(input_ids)
        all_attentions = ()
        for layer_module in self.layer:
            layer_outputs = layer_module(hidden, ext, output_attentions)
            hidden = layer_outputs[0]
            if output_attentions:
                all_attentions = all_attentions + (layer_outputs[1],)
        h = self.cls["norm"](nn.functional.gelu(self.cls["transform"](hidden)))
        prediction_scores = self.cls.decoder(h) + self.cls.bias
        masked_lm_loss = None
        if labels is not None:
            loss_fct = nn.CrossEntropyLoss()  # -100 index = padding token
            masked_lm_loss = loss_fct(prediction_scores.view(-1, self.config.vocab_size), labels.view(-1))
        return {"loss": masked_lm_loss, "logits": prediction_scores, "attentions": all_attentions or None}


# --- the data: sentences of a toy grammar, tokenized to ids; 1 = [CLS], 2 = [SEP], 3 = [MASK]
PAD, CLS, SEP, MASK = 0, 1, 2, 3


class ToyCorpus(Dataset):
    def __init__(self, n, seed):
        g = torch.Generator().manual_seed(seed)
        self.examples = []
        for _ in range(n):
            length = int(torch.randint(4, 12, (1,), generator=g))
            start = int(torch.randint(4, 20, (1,), generator=g))
            body = [4 + (start + 3 * k) % 36 for k in range(length)]  # arithmetic progressions
            self.examples.append([CLS] + body + [SEP])

    def __len__(self):
        return len(self.examples)

    def __getitem__(self, i):
        return {"input_ids": self.examples[i]}


@dataclass
class DataCollatorForLanguageModeling:
    mlm_probability: float = 0.15
    vocab_size: int = 40
    pad_to_multiple_of: Optional[int] = 8

    def __call__(self, examples):
        max_len = max(len(e["input_ids"]) for e in examples)
        if self.pad_to_multiple_of is not None and max_len % self.pad_to_multiple_of != 0:
            max_len = ((max_len // self.pad_to_multiple_of) + 1) * self.pad_to_multiple_of
        input_ids = torch.full((len(examples), max_len), PAD, dtype=torch.long)
        attention_mask = torch.zeros((len(examples), max_len), dtype=torch.long)
        for i, e in enumerate(examples):
            input_ids[i, : len(e["input_ids"])] = torch.tensor(e["input_ids"])
            attention_mask[i, : len(e["input_ids"])] = 1
        input_ids, labels = self.torch_mask_tokens(input_ids)
        return {"input_ids": input_ids, "attention_mask": attention_mask, "labels": labels}

    def torch_mask_tokens(self, inputs):
        labels = inputs.clone()
        probability_matrix = torch.full(labels.shape, self.mlm_probability)
        special_tokens_mask = (inputs == PAD) | (inputs == CLS) | (inputs == SEP)
        probability_matrix.masked_fill_(special_tokens_mask, value=0.0)
        masked_indices = torch.bernoulli(probability_matrix).bool()
        labels[~masked_indices] = -100  # We only compute loss on masked tokens

        # 80% of the time, we replace masked input tokens with tokenizer.mask_token ([MASK])
        indices_replaced = torch.bernoulli(torch.full(labels.shape, 0.8)).bool() & masked_indices
        inputs[indices_replaced] = MASK

        # 10% of the time, we replace masked input tokens with random word
        indices_random = torch.bernoulli(torch.full(labels.shape, 0.5)).bool() & masked_indices & ~indices_replaced
        random_words = torch.randint(self.vocab_size, labels.shape, dtype=torch.long)
        inputs[indices_random] = random_words[indices_random]
        return inputs, labels


torch.manual_seed(42)
config = BertConfig()
model = BertForMaskedLM(config)
print(model.cls.decoder.weight is model.embeddings.word_embeddings.weight)
print("parameters:", sum(p.numel() for p in model.parameters()))
print("unique storages:", len({p.data_ptr() for p in model.parameters()}))
sd = model.state_dict()
print(len(sd), "cls.decoder.weight" in sd, [k for k in sd if "position" in k])
print(model.embeddings.word_embeddings.weight[PAD].abs().sum().item())
print(model.embeddings)

train_dataset = ToyCorpus(96, seed=0)
collator = DataCollatorForLanguageModeling(vocab_size=config.vocab_size)
batch = collator([train_dataset[i] for i in range(4)])
print({k: (tuple(v.shape), v.dtype) for k, v in batch.items()})
print(batch["input_ids"][0].tolist())
print(batch["labels"][0].tolist())
print("masked tokens in batch:", int((batch["labels"] != -100).sum()))

# --- the trainer
args = dict(learning_rate=5e-3, weight_decay=0.01, warmup_ratio=0.1, num_train_epochs=3,
            per_device_train_batch_size=8, gradient_accumulation_steps=2, max_grad_norm=1.0,
            adam_epsilon=1e-8, logging_steps=5)
no_decay = ["bias", "LayerNorm.weight", "norm.weight", "attn_norm.weight", "out_norm.weight"]
optimizer_grouped_parameters = [
    {
        "params": [p for n, p in model.named_parameters() if not any(nd in n for nd in no_decay)],
        "weight_decay": args["weight_decay"],
    },
    {
        "params": [p for n, p in model.named_parameters() if any(nd in n for nd in no_decay)],
        "weight_decay": 0.0,
    },
]
print([len(g["params"]) for g in optimizer_grouped_parameters])
optimizer = AdamW(optimizer_grouped_parameters, lr=args["learning_rate"], eps=args["adam_epsilon"])

train_dataloader = DataLoader(train_dataset, batch_size=args["per_device_train_batch_size"], shuffle=True,
                              collate_fn=collator, generator=torch.Generator().manual_seed(7))
num_update_steps_per_epoch = max(len(train_dataloader) // args["gradient_accumulation_steps"], 1)
max_steps = math.ceil(args["num_train_epochs"] * num_update_steps_per_epoch)
num_warmup_steps = math.ceil(max_steps * args["warmup_ratio"])
lr_scheduler = get_linear_schedule_with_warmup(optimizer, num_warmup_steps, max_steps)
print(f"***** Running training *****\n  Num examples = {len(train_dataset)}\n  Num Epochs = {args['num_train_epochs']}")
print(f"  Total optimization steps = {max_steps}, warmup = {num_warmup_steps}")
print(lr_scheduler.get_last_lr())

global_step = 0
tr_loss = torch.tensor(0.0)
logging_loss_scalar = 0.0
log_history = []
model.zero_grad()
for epoch in range(args["num_train_epochs"]):
    for step, inputs in enumerate(train_dataloader):
        model.train()
        outputs = model(**inputs)
        loss = outputs["loss"]
        loss = loss / args["gradient_accumulation_steps"]
        loss.backward()
        tr_loss += loss.detach()
        if (step + 1) % args["gradient_accumulation_steps"] == 0 or (step + 1) == len(train_dataloader):
            grad_norm = torch.nn.utils.clip_grad_norm_(model.parameters(), args["max_grad_norm"])
            optimizer.step()
            lr_scheduler.step()
            model.zero_grad()
            global_step += 1
            if global_step % args["logging_steps"] == 0:
                tr_loss_scalar = tr_loss.item()
                logs = {
                    "loss": round((tr_loss_scalar - logging_loss_scalar) / args["logging_steps"], 4),
                    "grad_norm": round(grad_norm.item(), 4),
                    "learning_rate": lr_scheduler.get_last_lr()[0],
                    "epoch": round(epoch + (step + 1) / len(train_dataloader), 2),
                }
                logging_loss_scalar = tr_loss_scalar
                log_history.append(logs)
                print(logs)

print("decoder still tied:", model.cls.decoder.weight is model.embeddings.word_embeddings.weight)
print("pad row unchanged:", model.embeddings.word_embeddings.weight[PAD].abs().sum().item() == 0.0)
print(optimizer.state_dict()["param_groups"][1]["weight_decay"], len(optimizer.state))
print({k: v for k, v in lr_scheduler.state_dict().items() if k != "lr_lambdas"})

model.eval()
with torch.no_grad():
    eval_batch = collator([train_dataset[i] for i in range(8, 16)])
    out = model(**eval_batch, output_attentions=True)
    labels = eval_batch["labels"]
    preds = out["logits"].argmax(-1)
    mask = labels != -100
    print("eval loss < 3.5:", out["loss"].item() < 3.5, "masked accuracy >= 0:", (preds[mask] == labels[mask]).float().mean().item() >= 0)
    att = out["attentions"][0]
    print(att.shape, att.sum(-1)[0, 0, :4])
    pad_cols = eval_batch["attention_mask"] == 0
    print("attention on padding:", att[0, :, :, pad_cols[0]].abs().max().item())
