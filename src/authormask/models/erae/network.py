"""The ER-AE network (Bo et al. 2021, Eq. 1-3), in PyTorch."""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn
from torch.nn.utils.rnn import pack_padded_sequence

from authormask.models.erae.config import ERAEConfig

__all__ = ["ERAENetwork", "adaptive_cutoffs"]


def adaptive_cutoffs(config: ERAEConfig, vocab_size: int) -> list[int]:
    """The configured adaptive-softmax cluster boundaries that fit ``vocab_size`` classes (a
    small corpus gives a smaller vocabulary than configured), one split at half when none does,
    and no more tail clusters than leave each one a projection of at least one dimension
    (cluster ``i`` has ``hidden_size // adaptive_div**i``).

    Parameters
    ----------
    config
        The model's configuration.
    vocab_size
        The classes of the output layer.

    Returns
    -------
    list[int]
        The cluster boundaries.
    """
    fit = [c for c in config.adaptive_cutoffs if c < vocab_size - 1]
    fit = fit or [max(1, vocab_size // 2)]
    tails = 1
    while tails < len(fit) and config.hidden_size // config.adaptive_div ** (tails + 1) >= 1:
        tails += 1
    return fit[:tails]


class ERAENetwork(nn.Module):
    """Bidirectional GRU encoder, linear latent projection, GRU generator, softmax layer.

    * Eq. 1: ``E(x) = W_h concat(s_f, s_b)``, the final forward and backward states of the top
      encoder layer, projected to ``latent_size``.
    * Eq. 2: at step ``i`` the generator reads ``concat(E(x), Em(x_{i-1}))`` where ``x_{i-1}`` is
      the previous *original* token (``<bos>`` at step 1), never a generated one. The outputs
      at different steps are therefore functions of the input alone, which is what lets the
      per-token exponential mechanism compose sequentially (Theorem 1).
    * Eq. 3: a softmax over the whole fixed vocabulary. With ``output_layer="softmax"`` it is the
      paper's ``z_iv = w_v^T s_i + b_v``. With ``output_layer="adaptive"`` (the ``cpu``
      configuration) it is the adaptive softmax of Grave et al. (2017): the same normalised
      distribution over every token, factored into a frequent-word head and lower-rank tail
      clusters, which makes training 4x faster on a CPU. Either way :meth:`logits` returns
      scores whose softmax is the model's distribution, so the rating (Eq. 5) is a probability
      in [0, 1] and its sensitivity is 1.

    Parameters
    ----------
    config
        The model's configuration.
    vocab_size
        The tokens of the vocabulary, specials included.
    embedding_dim
        The dimension of the token embeddings.
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
        self.output: nn.Linear | nn.AdaptiveLogSoftmaxWithLoss
        if config.output_layer == "adaptive":
            self.output = nn.AdaptiveLogSoftmaxWithLoss(
                config.hidden_size,
                vocab_size,
                cutoffs=adaptive_cutoffs(config, vocab_size),
                div_value=config.adaptive_div,
            )
        else:
            self.output = nn.Linear(config.hidden_size, vocab_size)

    def encode(self, ids: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
        """Latent vectors ``E(x)`` (Eq. 1) of a padded batch ``ids`` with true ``lengths``.

        Parameters
        ----------
        ids
            The token ids, padded, shape (batch, time).
        lengths
            The true length of each segment.

        Returns
        -------
        torch.Tensor
            The latent vectors, shape (batch, latent).
        """
        packed = pack_padded_sequence(
            self.embedding(ids), lengths.cpu(), batch_first=True, enforce_sorted=False
        )
        _, h_n = self.encoder(packed)  # (num_layers * 2, batch, hidden)
        top = h_n.view(self.config.num_layers, 2, ids.shape[0], -1)[-1]
        return torch.as_tensor(self.to_latent(torch.cat([top[0], top[1]], dim=-1)))

    def hidden_states(self, ids: torch.Tensor, lengths: torch.Tensor, bos: int) -> torch.Tensor:
        """Generator states ``s_i`` for every position (batch, time, hidden), Eq. 2.

        Parameters
        ----------
        ids
            The token ids, padded, shape (batch, time).
        lengths
            The true length of each segment.
        bos
            The id of ``<bos>``.

        Returns
        -------
        torch.Tensor
            The states, shape (batch, time, hidden).
        """
        latent = self.encode(ids, lengths)
        prev = torch.full_like(ids, bos)
        prev[:, 1:] = ids[:, :-1]
        steps = ids.shape[1]
        inputs = torch.cat(
            [latent.unsqueeze(1).expand(-1, steps, -1), self.embedding(prev)], dim=-1
        )
        states, _ = self.generator(inputs)
        return torch.as_tensor(states)

    def states(self, ids: torch.Tensor, lengths: torch.Tensor, bos: int) -> torch.Tensor:
        """Generator states at the real (unpadded) positions, shape (tokens, hidden), in
        row-major order of the batch: segment 0's tokens, then segment 1's.

        Parameters
        ----------
        ids
            The token ids, padded, shape (batch, time).
        lengths
            The true length of each segment.
        bos
            The id of ``<bos>``.

        Returns
        -------
        torch.Tensor
            The states, shape (tokens, hidden).
        """
        states = self.hidden_states(ids, lengths, bos)
        mask = torch.arange(ids.shape[1], device=ids.device)[None, :] < lengths[:, None].to(
            ids.device
        )
        return states[mask]

    def log_probs(self, states: torch.Tensor) -> torch.Tensor:
        """log Pr[x_i = v] (Eq. 3) for every token of the vocabulary, shape (tokens, vocab).

        Parameters
        ----------
        states
            Generator states, shape (tokens, hidden).

        Returns
        -------
        torch.Tensor
            The log-probabilities, shape (tokens, vocab).
        """
        if isinstance(self.output, nn.AdaptiveLogSoftmaxWithLoss):
            return torch.as_tensor(self.output.log_prob(states))
        return F.log_softmax(self.output(states), dim=-1)

    def reconstruction_loss(self, states: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
        """Mean negative log-likelihood of ``targets`` (Eq. 8); the adaptive softmax computes
        it without the full distribution.

        Parameters
        ----------
        states
            Generator states, shape (tokens, hidden).
        targets
            The original token ids, shape (tokens,).

        Returns
        -------
        torch.Tensor
            The loss (a scalar).
        """
        if isinstance(self.output, nn.AdaptiveLogSoftmaxWithLoss):
            return torch.as_tensor(self.output(states, targets).loss)
        return F.cross_entropy(self.output(states), targets)

    def logits(self, ids: torch.Tensor, lengths: torch.Tensor, bos: int) -> torch.Tensor:
        """Scores ``z_iv`` (Eq. 2) at the real positions, shape (tokens, vocab): their softmax
        is the model's distribution (for the adaptive softmax they are the log-probabilities).

        Parameters
        ----------
        ids
            The token ids, padded, shape (batch, time).
        lengths
            The true length of each segment.
        bos
            The id of ``<bos>``.

        Returns
        -------
        torch.Tensor
            The scores, shape (tokens, vocab).
        """
        states = self.states(ids, lengths, bos)
        if isinstance(self.output, nn.AdaptiveLogSoftmaxWithLoss):
            return self.log_probs(states)
        return torch.as_tensor(self.output(states))
