"""The ER-AE network (Bo et al. 2021, Eq. 1-3), in PyTorch."""

from __future__ import annotations

import torch
from torch import nn
from torch.nn.utils.rnn import pack_padded_sequence

from authormask.models.erae.config import ERAEConfig

__all__ = ["ERAENetwork"]


class ERAENetwork(nn.Module):
    """Bidirectional GRU encoder, linear latent projection, GRU generator, softmax layer.

    * Eq. 1: ``E(x) = W_h concat(s_f, s_b)``, the final forward and backward states of the top
      encoder layer, projected to ``latent_size``.
    * Eq. 2: at step ``i`` the generator reads ``concat(E(x), Em(x_{i-1}))`` where ``x_{i-1}`` is
      the previous *original* token (``<bos>`` at step 1), never a generated one. The outputs
      at different steps are therefore functions of the input alone, which is what lets the
      per-token exponential mechanism compose sequentially (Theorem 1).
    * Eq. 3: ``z_iv = w_v^T s_i + b_v`` and a softmax over the vocabulary.
    """

    def __init__(self, config: ERAEConfig, *, vocab_size: int, embedding_dim: int) -> None:
        super().__init__()
        self.config = config
        self.embedding = nn.Embedding(vocab_size, embedding_dim, padding_idx=0)
        self.encoder = nn.GRU(
            embedding_dim,
            config.hidden_size,
            num_layers=config.num_layers,
            batch_first=True,
            bidirectional=True,
        )
        self.to_latent = nn.Linear(2 * config.hidden_size, config.latent_size, bias=False)
        self.generator = nn.GRU(
            config.latent_size + embedding_dim,
            config.hidden_size,
            num_layers=config.num_layers,
            batch_first=True,
        )
        self.output = nn.Linear(config.hidden_size, vocab_size)

    def encode(self, ids: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
        """Latent vectors ``E(x)`` (Eq. 1) of a padded batch ``ids`` with true ``lengths``."""
        packed = pack_padded_sequence(
            self.embedding(ids), lengths.cpu(), batch_first=True, enforce_sorted=False
        )
        _, h_n = self.encoder(packed)  # (num_layers * 2, batch, hidden)
        top = h_n.view(self.config.num_layers, 2, ids.shape[0], -1)[-1]
        return torch.as_tensor(self.to_latent(torch.cat([top[0], top[1]], dim=-1)))

    def hidden_states(self, ids: torch.Tensor, lengths: torch.Tensor, bos: int) -> torch.Tensor:
        """Generator states ``s_i`` for every position (batch, time, hidden), Eq. 2."""
        latent = self.encode(ids, lengths)
        prev = torch.full_like(ids, bos)
        prev[:, 1:] = ids[:, :-1]
        steps = ids.shape[1]
        inputs = torch.cat(
            [latent.unsqueeze(1).expand(-1, steps, -1), self.embedding(prev)], dim=-1
        )
        states, _ = self.generator(inputs)
        return torch.as_tensor(states)

    def logits(self, ids: torch.Tensor, lengths: torch.Tensor, bos: int) -> torch.Tensor:
        """Logits ``z_iv`` (Eq. 2) at the real (unpadded) positions, shape (tokens, vocab).

        Positions are in row-major order of the batch: segment 0's tokens, then segment 1's.
        """
        states = self.hidden_states(ids, lengths, bos)
        mask = torch.arange(ids.shape[1], device=ids.device)[None, :] < lengths[:, None].to(
            ids.device
        )
        return torch.as_tensor(self.output(states[mask]))
