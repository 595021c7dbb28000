"""Training loop with early stopping."""
import torch
from torch import nn


def train(model: nn.Module, loader, val_loader, epochs: int = 20, patience: int = 3, lr: float = 1e-3):
    """Train with Adam; stop when the validation loss stops improving."""
    opt = torch.optim.Adam(model.parameters(), lr=lr)
    loss_fn = nn.CrossEntropyLoss()
    best, bad_epochs = float("inf"), 0
    for epoch in range(epochs):
        model.train()
        for x, y in loader:
            opt.zero_grad()
            loss = loss_fn(model(x), y)
            loss.backward()
            opt.step()
        model.eval()
        with torch.no_grad():
            val = sum(loss_fn(model(x), y).item() for x, y in val_loader) / len(val_loader)
        if val < best:
            best, bad_epochs = val, 0
            torch.save(model.state_dict(), "best.pt")
        else:
            bad_epochs += 1
            if bad_epochs >= patience:
                break
    return best
