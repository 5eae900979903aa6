"""The training loop of the small tanh-output controllers (testdata/controllers/generate.py and
certify/testdata/tanhout/generate.py): Adam on the mean squared error, the learning rate cut
to 0.3 of itself at each third of the epochs, batches drawn by a seeded permutation.
"""
import torch
import torch.nn as nn


def train(model, X, Y, epochs, lr, batch, seed):
    """Fit model to (X, Y) in place and return the final mean squared error on all of X."""
    g = torch.Generator().manual_seed(seed)
    opt = torch.optim.Adam(model.parameters(), lr=lr)
    sched = torch.optim.lr_scheduler.StepLR(opt, step_size=max(1, epochs // 3), gamma=0.3)
    loss_fn = nn.MSELoss()
    n = X.shape[0]
    for _ in range(epochs):
        perm = torch.randperm(n, generator=g)
        for i in range(0, n, batch):
            idx = perm[i:i + batch]
            opt.zero_grad()
            loss = loss_fn(model(X[idx]), Y[idx])
            loss.backward()
            opt.step()
        sched.step()
    with torch.no_grad():
        return float(loss_fn(model(X), Y))
