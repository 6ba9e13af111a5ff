"""scikit-learn-style estimators written over torch tensors (the kind of utility module many
repositories carry): a StandardScaler, train_test_split with a seeded Generator, k-means with
k-means++ seeding, k-nearest neighbours by torch.cdist + topk + mode, logistic regression fitted
with LBFGS, a confusion matrix with bincount, and a silhouette score."""
import math

import torch


class StandardScaler:
    def fit(self, X):
        self.mean_ = X.mean(dim=0)
        self.scale_ = X.std(dim=0, unbiased=False)
        self.scale_[self.scale_ == 0] = 1.0
        return self

    def transform(self, X):
        return (X - self.mean_) / self.scale_

    def fit_transform(self, X):
        return self.fit(X).transform(X)


def train_test_split(X, y, test_size=0.25, seed=0):
    g = torch.Generator().manual_seed(seed)
    perm = torch.randperm(X.shape[0], generator=g)
    n_test = int(math.ceil(test_size * X.shape[0]))
    test, train = perm[:n_test], perm[n_test:]
    return X[train], X[test], y[train], y[test]


class KMeans:
    def __init__(self, n_clusters=3, max_iter=100, tol=1e-4, seed=0):
        self.n_clusters, self.max_iter, self.tol, self.seed = n_clusters, max_iter, tol, seed

    def _init_centroids(self, X, g):
        # k-means++: each next centre drawn with probability proportional to D(x)^2
        first = torch.randint(0, X.shape[0], (1,), generator=g)
        centers = [X[first.item()]]
        for _ in range(1, self.n_clusters):
            d2 = torch.cdist(X, torch.stack(centers)).min(dim=1).values ** 2
            idx = torch.multinomial(d2 / d2.sum(), 1, generator=g)
            centers.append(X[idx.item()])
        return torch.stack(centers)

    def fit(self, X):
        g = torch.Generator().manual_seed(self.seed)
        C = self._init_centroids(X, g)
        self.n_iter_ = 0
        for _ in range(self.max_iter):
            self.n_iter_ += 1
            labels = torch.cdist(X, C).argmin(dim=1)
            counts = torch.bincount(labels, minlength=self.n_clusters).clamp(min=1)
            newC = torch.zeros_like(C).index_add_(0, labels, X) / counts.unsqueeze(1).to(X.dtype)
            shift = (newC - C).norm(dim=1).max()
            C = newC
            if shift < self.tol:
                break
        self.cluster_centers_ = C
        self.labels_ = torch.cdist(X, C).argmin(dim=1)
        self.inertia_ = ((X - C[self.labels_]) ** 2).sum().item()
        return self

    def predict(self, X):
        return torch.cdist(X, self.cluster_centers_).argmin(dim=1)


class KNeighborsClassifier:
    def __init__(self, n_neighbors=5):
        self.k = n_neighbors

    def fit(self, X, y):
        self.X_, self.y_ = X, y
        return self

    def kneighbors(self, X):
        d = torch.cdist(X, self.X_)
        dist, ind = d.topk(self.k, dim=1, largest=False)
        return dist, ind

    def predict(self, X):
        _, ind = self.kneighbors(X)
        return torch.mode(self.y_[ind], dim=1).values

    def score(self, X, y):
        return (self.predict(X) == y).float().mean().item()


class LogisticRegression(torch.nn.Module):
    def __init__(self, n_features, n_classes, C=1.0):
        super().__init__()
        self.linear = torch.nn.Linear(n_features, n_classes, dtype=torch.float64)
        torch.nn.init.zeros_(self.linear.weight)
        torch.nn.init.zeros_(self.linear.bias)
        self.C = C

    def forward(self, X):
        return self.linear(X)

    def fit(self, X, y, max_iter=100):
        opt = torch.optim.LBFGS(self.parameters(), lr=1, max_iter=max_iter,
                                tolerance_grad=1e-7, tolerance_change=1e-9,
                                history_size=10, line_search_fn="strong_wolfe")
        n = X.shape[0]

        def closure():
            opt.zero_grad()
            loss = torch.nn.functional.cross_entropy(self(X), y, reduction="sum")
            loss = loss + 0.5 / self.C * self.linear.weight.pow(2).sum()
            loss.backward()
            return loss

        final = opt.step(closure)
        self.n_iter_ = opt.state[opt._params[0]]["n_iter"]
        self.loss_ = final.item() / n
        return self

    @torch.no_grad()
    def predict_proba(self, X):
        return torch.softmax(self(X), dim=1)

    def predict(self, X):
        return self.predict_proba(X).argmax(dim=1)


def confusion_matrix(y_true, y_pred, n_classes):
    return torch.bincount(y_true * n_classes + y_pred, minlength=n_classes ** 2).reshape(n_classes, n_classes)


def silhouette_score(X, labels):
    D = torch.cdist(X, X)
    n = X.shape[0]
    k = int(labels.max()) + 1
    same = labels.unsqueeze(0) == labels.unsqueeze(1)
    a = (D * same).sum(1) / (same.sum(1) - 1).clamp(min=1)
    b = torch.full((n,), float("inf"), dtype=X.dtype)
    for c in range(k):
        mask = labels == c
        mean_to_c = D[:, mask].mean(1)
        b = torch.where(~mask & (mean_to_c < b), mean_to_c, b)
    s = (b - a) / torch.maximum(a, b)
    return s.mean().item()


# three Gaussian blobs in float64, as sklearn's make_blobs
g = torch.Generator().manual_seed(42)
centers = torch.tensor([[-5.0, -2.0, 1.0], [0.0, 4.0, -3.0], [6.0, 0.0, 2.0]], dtype=torch.float64)
y = torch.arange(3).repeat_interleave(50)
X = centers[y] + torch.randn(150, 3, generator=g, dtype=torch.float64) * 1.5
print(X.shape, X.dtype, y.bincount())

Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.2, seed=1)
print(Xtr.shape, Xte.shape, ytr.bincount(minlength=3), yte.bincount(minlength=3))
scaler = StandardScaler().fit(Xtr)
print(scaler.mean_, scaler.scale_)
Xtr_s, Xte_s = scaler.transform(Xtr), scaler.transform(Xte)
print(Xtr_s.mean(0).abs().max() < 1e-12, Xtr_s.std(0, unbiased=False))

km = KMeans(n_clusters=3, seed=0).fit(Xtr_s)
print("kmeans iterations:", km.n_iter_, f"inertia: {km.inertia_:.4f}")
print(km.cluster_centers_)
cm = confusion_matrix(ytr, km.labels_, 3)
print(cm)
print("each cluster one class:", bool(((cm > 0).sum(1) == 1).all()))
print(f"silhouette: {silhouette_score(Xtr_s, km.labels_):.4f}")

knn = KNeighborsClassifier(n_neighbors=5).fit(Xtr_s, ytr)
dist, ind = knn.kneighbors(Xte_s[:3])
print(dist, ind)
print(f"knn accuracy: {knn.score(Xte_s, yte):.3f}")

clf = LogisticRegression(3, 3, C=0.5)
clf.fit(Xtr_s, ytr)
print(clf.linear)
print("lbfgs iterations:", clf.n_iter_, f"loss: {clf.loss_:.6f}")
print(clf.linear.weight.data, clf.linear.bias.data)
proba = clf.predict_proba(Xte_s[:4])
print(proba, proba.sum(1))
print(confusion_matrix(yte, clf.predict(Xte_s), 3))
print("test accuracy:", (clf.predict(Xte_s) == yte).double().mean().item())
