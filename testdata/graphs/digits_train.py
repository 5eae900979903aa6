"""The training loop of the digits classifiers of make.py and make_vit.py: cross-entropy with a
one-cycle schedule (from 3e-3 up to 1e-2), weight decay 1e-4, batches of 64 drawn by a seeded
permutation; make.py's CNNs shift each batch by up to one pixel, make_vit.py's transformer uses
AdamW instead of Adam.
"""
import torch
import torch.nn.functional as F


def train_digits(model, Xtr, ytr, epochs, seed, optimiser=torch.optim.Adam, shift=False):
    """Train model on the images Xtr ([N, 1, 8, 8]) and labels ytr; return it in eval mode."""
    torch.manual_seed(seed); g = torch.Generator().manual_seed(seed)
    xt, yt = torch.from_numpy(Xtr), torch.from_numpy(ytr)
    opt = optimiser(model.parameters(), 3e-3, weight_decay=1e-4)
    steps = (len(xt) + 63) // 64
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, 1e-2, total_steps=epochs * steps)
    for _ in range(epochs):
        model.train(); perm = torch.randperm(len(xt), generator=g)
        for i in range(0, len(xt), 64):
            idx = perm[i:i + 64]
            xb = xt[idx]
            if shift:
                dy, dx = torch.randint(-1, 2, (2,), generator=g).tolist()
                xb = torch.roll(xb, (dy, dx), (2, 3))
            opt.zero_grad(); F.cross_entropy(model(xb), yt[idx]).backward(); opt.step(); sched.step()
    model.eval()
    return model
