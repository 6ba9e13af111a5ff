"""Learning to rank (the allRank / pytorchltr style) on synthetic queries with graded relevance:
query groups from torch.unique_consecutive(return_counts=True) and split, padded listwise
batches with a mask (pad_sequence, padding_value=-1), RankNet's pairwise loss over all pairs
with broadcasting and BCEWithLogits, ListNet's top-one cross entropy, LambdaRank's |delta NDCG|
weights, ApproxNDCG, nn.MarginRankingLoss on sampled pairs, NDCG@k / MRR evaluation with
argsort / gather / cumsum, and ties handled with torch.sort(stable=True)."""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.utils.rnn import pad_sequence

torch.manual_seed(0)
PADDED_Y_VALUE = -1
DEFAULT_EPS = 1e-10


def dcg(y_pred, y_true, ats=None, gain_function=lambda x: torch.pow(2, x) - 1, padding_indicator=PADDED_Y_VALUE):
    y_true = y_true.clone()
    y_pred = y_pred.clone()
    actual_length = y_true.shape[1]
    if ats is None:
        ats = [actual_length]
    ats = [min(at, actual_length) for at in ats]
    padded_mask = y_true == padding_indicator
    y_pred[padded_mask] = float("-inf")
    y_true[padded_mask] = 0.0
    _, indices = y_pred.sort(descending=True, dim=-1)
    true_sorted_by_preds = torch.gather(y_true, dim=1, index=indices)
    discounts = (torch.tensor(1) / torch.log2(torch.arange(true_sorted_by_preds.shape[1], dtype=torch.float) + 2.0))
    discounted_gains = (gain_function(true_sorted_by_preds) * discounts)[:, :max(ats)]
    cum_dcg = torch.cumsum(discounted_gains, dim=1)
    ats_tensor = torch.tensor(ats, dtype=torch.long) - torch.tensor(1)
    return cum_dcg[:, ats_tensor]


def ndcg(y_pred, y_true, ats=None):
    idcg = dcg(y_true, y_true, ats)
    ndcg_ = dcg(y_pred, y_true, ats) / idcg
    idcg_mask = idcg == 0
    ndcg_[idcg_mask] = 0.0
    return ndcg_


def rankNet(y_pred, y_true, padded_value_indicator=PADDED_Y_VALUE):
    y_pred = y_pred.clone()
    y_true = y_true.clone()
    mask = y_true == padded_value_indicator
    y_pred[mask] = float("-inf")
    y_true[mask] = float("-inf")
    document_pairs_candidates = list(__import__("itertools").product(range(y_true.shape[1]), repeat=2))
    pairs_true = y_true[:, document_pairs_candidates]
    selected_pred = y_pred[:, document_pairs_candidates]
    true_diffs = pairs_true[:, :, 0] - pairs_true[:, :, 1]
    pred_diffs = selected_pred[:, :, 0] - selected_pred[:, :, 1]
    the_mask = (true_diffs > 0) & (~torch.isinf(true_diffs))
    pred_diffs = pred_diffs[the_mask]
    true_diffs = (true_diffs > 0).type(torch.float32)[the_mask]
    return nn.BCEWithLogitsLoss()(pred_diffs, true_diffs)


def listNet(y_pred, y_true, eps=DEFAULT_EPS, padded_value_indicator=PADDED_Y_VALUE):
    y_pred = y_pred.clone()
    y_true = y_true.clone()
    mask = y_true == padded_value_indicator
    y_pred[mask] = float("-inf")
    y_true[mask] = float("-inf")
    preds_smax = F.softmax(y_pred, dim=1)
    true_smax = F.softmax(y_true, dim=1)
    preds_smax = preds_smax + eps
    preds_log = torch.log(preds_smax)
    return torch.mean(-torch.sum(true_smax * preds_log, dim=1))


def lambda_weights(y_pred, y_true, mask):
    y_pred = y_pred.masked_fill(mask, float("-inf"))
    true = y_true.masked_fill(mask, 0.0)
    _, order = y_pred.sort(descending=True, dim=1, stable=True)
    ranks = torch.empty_like(order)
    ranks.scatter_(1, order, torch.arange(order.shape[1]).expand_as(order))
    gains = torch.pow(2.0, true) - 1
    disc = 1.0 / torch.log2(ranks.float() + 2.0)
    idcg = dcg(y_true, y_true).squeeze(1).clamp_min(DEFAULT_EPS)
    delta = (gains[:, :, None] - gains[:, None, :]).abs() * (disc[:, :, None] - disc[:, None, :]).abs()
    return delta / idcg[:, None, None]


def approxNDCGLoss(y_pred, y_true, eps=DEFAULT_EPS, padded_value_indicator=PADDED_Y_VALUE, alpha=1.0):
    y_pred = y_pred.clone()
    y_true = y_true.clone()
    padded_mask = y_true == padded_value_indicator
    y_pred[padded_mask] = float("-inf")
    y_true[padded_mask] = float("-inf")
    y_pred_sorted, indices_pred = y_pred.sort(descending=True, dim=-1)
    y_true_sorted, _ = y_true.sort(descending=True, dim=-1)
    true_sorted_by_preds = torch.gather(y_true, dim=1, index=indices_pred)
    true_diffs = true_sorted_by_preds[:, :, None] - true_sorted_by_preds[:, None, :]
    padded_pairs_mask = torch.isfinite(true_diffs)
    padded_pairs_mask.diagonal(dim1=-2, dim2=-1).zero_()
    true_sorted_by_preds.clamp_(min=0.0)
    y_true_sorted.clamp_(min=0.0)
    pos_idxs = torch.arange(1, y_pred.shape[1] + 1)
    D = torch.log2(1.0 + pos_idxs.float())[None, :]
    maxDCGs = torch.sum((torch.pow(2, y_true_sorted) - 1) / D, dim=-1).clamp(min=eps)
    G = (torch.pow(2, true_sorted_by_preds) - 1) / maxDCGs[:, None]
    scores_diffs = (y_pred_sorted[:, :, None] - y_pred_sorted[:, None, :])
    scores_diffs[~padded_pairs_mask] = 0.0
    approx_pos = 1.0 + torch.sum(padded_pairs_mask.float() * (torch.sigmoid(-alpha * scores_diffs).clamp(min=eps)), dim=-1)
    approx_D = torch.log2(1.0 + approx_pos)
    approx_NDCG = torch.sum((G / approx_D), dim=-1)
    return -torch.mean(approx_NDCG)


# synthetic data: documents with features, relevance from a hidden linear scorer
n_docs, dim = 120, 6
qid = torch.sort(torch.randint(0, 12, (n_docs,))).values
features = torch.randn(n_docs, dim)
w_true = torch.randn(dim)
rel = torch.bucketize(features @ w_true + 0.3 * torch.randn(n_docs), torch.tensor([-1.0, 0.0, 1.0])).float()
queries, counts = torch.unique_consecutive(qid, return_counts=True)
print("queries", queries.tolist())
print("docs per query", counts.tolist())
print("relevance histogram", torch.bincount(rel.long(), minlength=4).tolist())
feat_lists = torch.split(features, counts.tolist())
rel_lists = torch.split(rel, counts.tolist())
X = pad_sequence(feat_lists, batch_first=True)
Y = pad_sequence(rel_lists, batch_first=True, padding_value=PADDED_Y_VALUE)
mask = Y == PADDED_Y_VALUE
print("padded batch", tuple(X.shape), tuple(Y.shape), "padded slots", int(mask.sum()))

# the metrics on fixed values
yp = torch.tensor([[0.3, 0.9, 0.1, 0.5], [2.0, 1.0, 0.0, -1.0]])
yt = torch.tensor([[1.0, 3.0, 0.0, -1.0], [0.0, 0.0, 1.0, 2.0]])
print("ndcg@[1,3]", ndcg(yp, yt, ats=[1, 3]))
print("rankNet", rankNet(yp, yt))
print("listNet", listNet(yp, yt))
print("approxNDCG", approxNDCGLoss(yp, yt))
print("lambda weights", lambda_weights(yp, yt, yt == PADDED_Y_VALUE)[0])
ties = torch.tensor([[1.0, 2.0, 1.0, 2.0, 0.5]])
print("stable sort of ties", ties.sort(descending=True, stable=True).indices)

for loss_name in ("rankNet", "listNet", "approxNDCG", "lambdaRank"):
    torch.manual_seed(1)
    model = nn.Sequential(nn.Linear(dim, 16), nn.Tanh(), nn.Linear(16, 1))
    opt = torch.optim.Adam(model.parameters(), lr=0.02)
    with torch.no_grad():
        before = ndcg(model(X).squeeze(-1), Y, ats=[5]).mean()
    for epoch in range(25):
        scores = model(X).squeeze(-1)
        if loss_name == "rankNet":
            loss = rankNet(scores, Y)
        elif loss_name == "listNet":
            loss = listNet(scores, Y)
        elif loss_name == "approxNDCG":
            loss = approxNDCGLoss(scores, Y)
        else:
            w = lambda_weights(scores.detach(), Y, mask)
            diff = scores[:, :, None] - scores[:, None, :]
            better = (Y[:, :, None] > Y[:, None, :]) & ~mask[:, :, None] & ~mask[:, None, :]
            loss = (w * F.softplus(-diff))[better].sum() / better.sum()
        opt.zero_grad()
        loss.backward()
        opt.step()
    with torch.no_grad():
        after = ndcg(model(X).squeeze(-1), Y, ats=[5]).mean()
    print(f"{loss_name:10s} final loss {loss.item():.5f} ndcg@5 {before.item():.4f} -> {after.item():.4f} improved: {after.item() > before.item()}")

# pairwise margin ranking on sampled pairs and MRR
margin = nn.MarginRankingLoss(margin=0.5)
i = torch.randint(0, n_docs, (64,))
j = torch.randint(0, n_docs, (64,))
target = torch.sign(rel[i] - rel[j])
keep = target != 0
with torch.no_grad():
    s = model(features).squeeze(-1)
print("margin ranking loss", margin(s[i][keep], s[j][keep], target[keep]).shape, "pairs kept", int(keep.sum()))
first_rel = []
for f, r in zip(feat_lists, rel_lists):
    with torch.no_grad():
        order = model(f).squeeze(-1).argsort(descending=True)
    hits = (r[order] >= 2).nonzero()
    first_rel.append(1.0 / (hits[0, 0].item() + 1) if len(hits) else 0.0)
print("MRR in (0, 1]:", 0 < sum(first_rel) / len(first_rel) <= 1)
