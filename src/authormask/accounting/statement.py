"""The privacy statement that accompanies every output."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from typing import Any

__all__ = ["PassThroughCounts", "PrivacyStatement", "SequenceStatement"]


@dataclass(frozen=True)
class PassThroughCounts:
    """What happened to each token of a document."""

    tokens: int
    perturbed: int
    stopwords: int
    punctuation: int
    oov_dropped: int
    oov_kept_unprotected: int
    oov_mapped: int
    not_released_by_fixed_length: int


class _Statement:
    """``to_dict``/``to_json`` shared by the statement dataclasses."""

    caveats: tuple[str, ...]

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)  # type: ignore[call-overload]
        d["caveats"] = list(self.caveats)
        return dict(d)

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), sort_keys=False)


@dataclass(frozen=True)
class PrivacyStatement(_Statement):
    """Machine-readable statement of the guarantee of one released output.

    ``to_dict``/``to_json`` give the machine form, ``describe`` the human form.
    """

    mechanism: str
    reference: str
    mode: str
    epsilon: float
    epsilon_unit: str
    length: int
    fixed_length_method: str
    guarantee: str
    document_bound: str
    embeddings: dict[str, Any]
    stopwords: str
    stopword_handling: str
    oov_policy: str
    counts: PassThroughCounts
    seed: str
    version: str
    caveats: tuple[str, ...] = field(default_factory=tuple)

    def describe(self) -> str:
        c = self.counts
        e = self.embeddings
        fate = "passed through unchanged" if self.mode == "text" else "removed (not released)"
        lines = [
            f"Privacy statement (authormask {self.version})",
            f"  mechanism   : {self.mechanism} [{self.mode} mode]",
            f"  reference   : {self.reference}",
            f"  epsilon     : {self.epsilon:g} {self.epsilon_unit}",
            f"  N           : {self.length} words ({self.fixed_length_method})",
            f"  guarantee   : {self.guarantee}",
            f"  bound       : {self.document_bound}",
            f"  embeddings  : {e['name']} ({e['source']}), K={e['vocab_size']} words, "
            f"{e['dimension']}-d, words sha256 {e['words_sha256']}, "
            f"vectors sha256 {e['vectors_sha256']}",
            f"  stopwords   : {self.stopwords}; {self.stopword_handling}",
            f"  unknown words (OOV): {self.oov_policy}",
            f"  tokens      : {c.tokens} total, {c.perturbed} perturbed, "
            f"{c.stopwords} stopwords and {c.punctuation} punctuation {fate}, "
            f"{c.oov_dropped} OOV dropped, {c.oov_kept_unprotected} OOV released unchanged "
            f"(unprotected), {c.oov_mapped} OOV mapped, "
            f"{c.not_released_by_fixed_length} content words not released (beyond N)",
            f"  randomness  : {self.seed}",
        ]
        lines += [f"  caveat      : {cv}" for cv in self.caveats]
        return "\n".join(lines)


@dataclass(frozen=True)
class SequenceStatement(_Statement):
    """The guarantee of a text generated token by token (ER-AE, AE-DP, SynTF, Random-R).

    Each output token is one exponential-mechanism draw that is ``epsilon``-DP (Bo et al. 2021,
    Eq. 6); the ``tokens`` draws of a text compose sequentially to ``total_epsilon = epsilon * l``
    (their Theorem 1). The number of sentences and their token lengths are released as they are,
    so the guarantee is between texts that are segmented alike.
    """

    mechanism: str
    reference: str
    epsilon: float
    epsilon_unit: str
    sensitivity: float
    rating: str
    tokens: int
    segments: int
    split_sentences: int
    total_epsilon: float
    guarantee: str
    released_unchanged: str
    output_vocabulary: int
    model: dict[str, Any]
    unknown_tokens: int
    training_overlap: int | None
    seed: str
    version: str
    caveats: tuple[str, ...] = field(default_factory=tuple)

    def describe(self) -> str:
        model = ", ".join(f"{k}={v}" for k, v in self.model.items() if v is not None)
        lines = [
            f"Privacy statement (authormask {self.version})",
            f"  mechanism   : {self.mechanism}",
            f"  reference   : {self.reference}",
            f"  epsilon     : {self.epsilon:g} {self.epsilon_unit} "
            f"(sensitivity {self.sensitivity:g}; rating: {self.rating})",
            f"  length l    : {self.tokens} tokens in {self.segments} segments "
            f"({self.split_sentences} long sentences split, none truncated)",
            f"  total       : epsilon * l = {self.total_epsilon:g}",
            f"  guarantee   : {self.guarantee}",
            f"  unchanged   : {self.released_unchanged}",
            f"  output vocabulary: {self.output_vocabulary} words, fixed before the input is seen",
            f"  model       : {model}",
            f"  unknown tokens: {self.unknown_tokens} mapped to <unk> before rating",
        ]
        if self.training_overlap is not None:
            lines.append(
                f"  training overlap: {self.training_overlap} of {self.segments} segments occur "
                "verbatim in the model's training corpus"
            )
        lines.append(f"  randomness  : {self.seed}")
        lines += [f"  caveat      : {cv}" for cv in self.caveats]
        return "\n".join(lines)
