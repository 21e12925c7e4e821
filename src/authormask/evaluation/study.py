"""Known texts and unknown snippets (Fernandes et al. 2019, section 6 and appendix B.1).

Following Koppel et al. (2011) and appendix B.1, each author gets a known-author TEXT (the first
``known_words`` words of their known material, default 2000) and an unknown SNIPPET (the final
``snippet_words`` words of their unknown material, default 1000). Both are normalised (lowercase,
no stopwords, no punctuation, out-of-vocabulary words handled by the preparer's policy) and
truncated to a common number N of content words, because the mechanism needs bags of one size.
Default N: the shortest text or snippet of the set (B.1). Each item keeps the raw text up to its
N-th content word, for the readable emp-text release and for attackers that read text.

The realistic setting (``all_known=True``) gives the attacker what a real one would have: every
training document of every author as known text, in consecutive pieces of N content words (all
of it but each author's last incomplete piece), and every test document as a query, cut to its
first N content words (default N: the shortest test document). On Reuters C50 that is about
25,000 known words per author instead of 2,000, and 2,500 queries instead of 50, so an
accuracy's 95% interval is a few points wide instead of +-13.

A PAN collection (:mod:`authormask.datasets.pan`) is one author study per problem
(:func:`build_pan_study`), each in the realistic setting: the problem's candidates are the
authors, their known texts the known material, every unknown text by a candidate a query (the
``<UNK>`` ones, by none of the candidates, are left out: the study is closed-set). Problems are
never pooled into one task; a protocol pools their counts.

Topic studies (corpora with topics and no authors, e.g. BBC News) draw ``per_topic`` query
documents and ``per_topic`` reference documents per topic; every other document with a topic is
training data for trained utility measures (fastText).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from authormask.datasets._base import Corpus, Document
from authormask.datasets.pan import UNKNOWN_AUTHOR, PanProblem, pan_problem_corpus
from authormask.exceptions import InputError, InvalidParameterError
from authormask.randomness import RandomState, check_random_state
from authormask.text.prepare import PreparedDocument, TextPreparer
from authormask.validation import check_positive_int

__all__ = [
    "TASKS",
    "Item",
    "Study",
    "build_author_study",
    "build_pan_study",
    "build_realistic_study",
    "build_study",
    "build_topic_study",
]

TASKS = ("author", "topic")
_WORD = re.compile(r"\S+")


@dataclass(frozen=True)
class Item:
    """One text of a study: its raw text (cut after its N-th content word) and its N words.

    Attributes
    ----------
    item_id
        The item's name (``known:<author>``, ``snippet:<author>``, ``query:<doc>``...).
    text
        The raw text, cut after its N-th content word.
    words
        Its N content words, prepared.
    author
        The author, or ``None``.
    topic
        The topic, or ``None``.
    """

    item_id: str
    text: str
    words: tuple[str, ...]
    author: str | None = None
    topic: str | None = None

    def label(self, task: str) -> str | None:
        """The item's class in a task.

        Parameters
        ----------
        task
            ``"author"`` or ``"topic"``.

        Returns
        -------
        str | None
            The author for ``"author"``, else the topic.
        """
        return self.author if task == "author" else self.topic


@dataclass(frozen=True)
class Study:
    """What an evaluation runs on: reference texts, queries, training texts, and N.

    Attributes
    ----------
    task
        ``"author"`` or ``"topic"``.
    known
        The reference (known) texts.
    queries
        The texts to attribute.
    train
        The training texts of trained utility measures.
    length
        N, the content words of every known text and query.
    corpus
        The corpus summary.
    settings
        The settings the study was built with.
    """

    task: str
    known: tuple[Item, ...]
    queries: tuple[Item, ...]
    train: tuple[Item, ...]
    length: int
    corpus: dict[str, object]
    settings: dict[str, object] = field(default_factory=dict)

    @property
    def authors(self) -> tuple[str, ...]:
        return tuple(sorted({i.author for i in self.known if i.author is not None}))

    @property
    def topics(self) -> tuple[str, ...]:
        return tuple(sorted({i.topic for i in self.known + self.queries if i.topic is not None}))

    @property
    def has_topics(self) -> bool:
        return all(i.topic is not None for i in self.queries) and len(self.topics) >= 2

    def describe(self) -> dict[str, object]:
        """The study in numbers, JSON-ready.

        Returns
        -------
        dict[str, object]
            The task, corpus name, counts of texts, N, authors, topics and the settings.
        """
        return {
            "task": self.task,
            "corpus_name": self.corpus.get("name"),
            "known_texts": len(self.known),
            "queries": len(self.queries),
            "training_texts": len(self.train),
            "length_N": self.length,
            "authors": len(self.authors),
            "topics": list(self.topics),
            **self.settings,
        }


def _word_spans(text: str) -> list[tuple[int, int]]:
    return [m.span() for m in _WORD.finditer(text)]


def _window(text: str, start_word: int, stop_word: int) -> str:
    spans = _word_spans(text)
    if not spans:
        return ""
    stop_word = min(stop_word, len(spans))
    return text[spans[start_word][0] : spans[stop_word - 1][1]]


def _cut(prepared: PreparedDocument, n: int, first: int = 0) -> tuple[str, tuple[str, ...]]:
    """Raw text from content word ``first`` to content word ``first + n - 1``, and those words."""
    toks = prepared.tokens
    start = toks[prepared.content_positions[first]].start if first else 0
    end = toks[prepared.content_positions[first + n - 1]].end
    return prepared.text[start:end], prepared.content_words[first : first + n]


def _prepare(preparer: TextPreparer, text: str, label: str) -> PreparedDocument:
    try:
        return preparer.prepare(text)
    except InputError as exc:
        raise InputError(f"{label}: {exc}") from None


def _majority_topic(docs: Sequence[Document]) -> str | None:
    topics = Counter(d.topic for d in docs if d.topic is not None)
    return topics.most_common(1)[0][0] if topics else None


def _check_length(prepared: dict[str, PreparedDocument], length: int | None, what: str) -> int:
    shortest_id, shortest = min(prepared.items(), key=lambda kv: len(kv[1].content_words))
    if length is None:
        return len(shortest.content_words)
    length = check_positive_int(length, name="length N")
    if len(shortest.content_words) < length:
        raise InputError(
            f"{what} {shortest_id} has only {len(shortest.content_words)} content words, "
            f"fewer than N={length}; lower `length` or lengthen the texts"
        )
    return length


def build_author_study(
    corpus: Corpus,
    preparer: TextPreparer,
    *,
    known_words: int = 2000,
    snippet_words: int = 1000,
    length: int | None = None,
    max_authors: int | None = None,
    all_known: bool = False,
) -> Study:
    """Per author one known TEXT and one unknown SNIPPET (appendix B.1), truncated to N; or,
    with ``all_known``, every training document as known text and every test document as a
    query (:func:`build_realistic_study`).

    With train/test splits the text comes from the author's training documents and the snippet
    from their test documents (concatenated in corpus order); an author with no test documents
    is a candidate (known text) without a snippet. Without splits both come from the
    author's concatenated documents: the text from the start, the snippet from the end, never
    overlapping (the snippet is at most a third of the material).

    Parameters
    ----------
    corpus
        The corpus (at least 2 authors).
    preparer
        Normalises the texts into content words.
    known_words
        The words of each known text.
    snippet_words
        The words of each snippet.
    length
        N, or ``None`` for the shortest text or snippet.
    max_authors
        Keep the first this many authors (at least 2), or ``None`` for all.
    all_known
        Build the realistic study instead.

    Returns
    -------
    Study
        The author study.

    Raises
    ------
    InputError
        If the corpus has fewer than 2 authors, an author has no known text or too little text,
        no author has a snippet, or a text is shorter than N.
    InvalidParameterError
        If ``max_authors`` is below 2.
    """
    known_words = check_positive_int(known_words, name="known-text words")
    snippet_words = check_positive_int(snippet_words, name="snippet words")
    authors = list(corpus.authors)
    if len(authors) < 2:
        found = f"only {authors[0]!r}" if authors else "none"
        raise InputError(
            f"dataset {corpus.name!r} needs at least 2 authors for author identification, "
            f"found {found}"
        )
    if max_authors is not None:
        max_authors = check_positive_int(max_authors, name="number of authors")
        if max_authors < 2:
            raise InvalidParameterError(f"number of authors must be >= 2, got {max_authors}")
        authors = authors[:max_authors]
    if all_known:
        return build_realistic_study(corpus, preparer, authors=authors, length=length)
    texts: dict[str, PreparedDocument] = {}
    snippets: dict[str, PreparedDocument] = {}
    topics: dict[str, str | None] = {}
    used_ids: set[str] = set()
    for author in authors:
        docs = corpus.select(author=author)
        if corpus.has_splits:
            known_docs = [d for d in docs if d.split == "train"]
            unknown_docs = [d for d in docs if d.split == "test"]
            if not known_docs:
                raise InputError(f"author {author!r} has no known (train) text")
            known_src = "\n\n".join(d.text for d in known_docs)
            known_text = _window(known_src, 0, known_words)
            if unknown_docs:  # a candidate without unknown text is a known text only
                unknown_src = "\n\n".join(d.text for d in unknown_docs)
                n_unknown = len(_word_spans(unknown_src))
                snippet_text = _window(unknown_src, max(n_unknown - snippet_words, 0), n_unknown)
                used_ids.update(d.doc_id for d in unknown_docs)
            else:
                snippet_text = None
        else:
            known_docs = unknown_docs = docs
            src = "\n\n".join(d.text for d in docs)
            total = len(_word_spans(src))
            snip = min(snippet_words, total // 3)
            if snip < 1:
                raise InputError(f"author {author!r} has too little text ({total} words)")
            known_text = _window(src, 0, min(known_words, total - snip))
            snippet_text = _window(src, total - snip, total)
            used_ids.update(d.doc_id for d in docs)
        texts[author] = _prepare(preparer, known_text, f"known text of author {author!r}")
        if snippet_text is not None:
            snippets[author] = _prepare(preparer, snippet_text, f"snippet of author {author!r}")
        topics[author] = _majority_topic(known_docs + unknown_docs)
    if not snippets:
        raise InputError(f"dataset {corpus.name!r}: no author has unknown (test) text")
    n = _check_length(
        {
            **{f"known text of {a!r}": p for a, p in texts.items()},
            **{f"snippet of {a!r}": p for a, p in snippets.items()},
        },
        length,
        "the",
    )
    known_items = []
    query_items = []
    for author in authors:
        kt, kw = _cut(texts[author], n)
        known_items.append(Item(f"known:{author}", kt, kw, author=author, topic=topics[author]))
        if author in snippets:
            st, sw = _cut(snippets[author], n)
            query_items.append(
                Item(f"snippet:{author}", st, sw, author=author, topic=topics[author])
            )
    train_items = _training_items(
        corpus,
        preparer,
        exclude=used_ids
        if not corpus.has_splits
        else {d.doc_id for d in corpus.documents if d.split == "test"},
    )
    return Study(
        task="author",
        known=tuple(known_items),
        queries=tuple(query_items),
        train=tuple(train_items),
        length=n,
        corpus=corpus.summary(),
        settings={
            "known_words": known_words,
            "snippet_words": snippet_words,
            "max_authors": max_authors,
        },
    )


def build_realistic_study(
    corpus: Corpus,
    preparer: TextPreparer,
    *,
    authors: Sequence[str] | None = None,
    length: int | None = None,
) -> Study:
    """Every training document as known text (in pieces of N content words) and every test
    document as a query (its first N content words); see the module docstring. Needs
    train/test splits; N defaults to the shortest test document's content-word count.

    Parameters
    ----------
    corpus
        The corpus (with train/test splits).
    preparer
        Normalises the texts into content words.
    authors
        The authors to keep (at least 2), or ``None`` for all.
    length
        N, or ``None`` for the shortest test document.

    Returns
    -------
    Study
        The author study.

    Raises
    ------
    InputError
        If the corpus has no splits or fewer than 2 authors, an author has no known text or less
        than N words of it, no author has test text, or a test document is shorter than N.
    """
    if not corpus.has_splits:
        raise InputError(
            f"dataset {corpus.name!r} has no train/test splits; all known text and every test "
            "document (`all_known`) needs them"
        )
    chosen = list(authors if authors is not None else corpus.authors)
    if len(chosen) < 2:
        raise InputError(f"dataset {corpus.name!r} needs at least 2 authors, found {len(chosen)}")
    queries_prepared: dict[str, tuple[str, PreparedDocument]] = {}
    known_prepared: dict[str, PreparedDocument] = {}
    topics: dict[str, str | None] = {}
    for author in chosen:
        docs = corpus.select(author=author)
        train = [d for d in docs if d.split == "train"]
        if not train:
            raise InputError(f"author {author!r} has no known (train) text")
        known_prepared[author] = _prepare(
            preparer, "\n\n".join(d.text for d in train), f"known text of author {author!r}"
        )
        topics[author] = _majority_topic(docs)
        for d in docs:
            if d.split == "test":
                queries_prepared[d.doc_id] = (
                    author,
                    _prepare(preparer, d.text, f"test document {d.doc_id!r}"),
                )
    if not queries_prepared:
        raise InputError(f"dataset {corpus.name!r}: no author has unknown (test) text")
    n = _check_length(
        {f"test document {k!r}": p for k, (_, p) in queries_prepared.items()}, length, "the"
    )
    known_items: list[Item] = []
    for author in chosen:
        p = known_prepared[author]
        pieces = len(p.content_words) // n
        if pieces < 1:
            raise InputError(
                f"the known text of {author!r} has {len(p.content_words)} content words, fewer "
                f"than N={n}; lower `length`"
            )
        for k in range(pieces):
            text, words = _cut(p, n, k * n)
            known_items.append(
                Item(f"known:{author}:{k}", text, words, author=author, topic=topics[author])
            )
    query_items = []
    for doc_id, (author, p) in queries_prepared.items():
        text, words = _cut(p, n)
        query_items.append(
            Item(f"snippet:{doc_id}", text, words, author=author, topic=topics[author])
        )
    train_items = _training_items(
        corpus, preparer, exclude={d.doc_id for d in corpus.documents if d.split == "test"}
    )
    return Study(
        task="author",
        known=tuple(known_items),
        queries=tuple(query_items),
        train=tuple(train_items),
        length=n,
        corpus=corpus.summary(),
        settings={"all_known": True, "max_authors": None if authors is None else len(chosen)},
    )


def build_pan_study(
    problem: PanProblem, preparer: TextPreparer, *, length: int | None = None
) -> Study:
    """The closed-set author study of one PAN problem (module docstring): every known text of
    every candidate is known material (in pieces of N content words), every unknown text by a
    candidate a query (its first N content words; N default: the shortest of them); the
    candidates, all of them, are the answers. Errors name the problem.

    Parameters
    ----------
    problem
        The PAN problem.
    preparer
        Normalises the texts into content words.
    length
        N, or ``None`` for the shortest unknown text by a candidate.

    Returns
    -------
    Study
        The author study, its settings naming the problem.

    Raises
    ------
    InputError
        If the problem cannot make a study (the message names the problem).
    """
    try:
        study = build_realistic_study(pan_problem_corpus(problem), preparer, length=length)
    except InputError as exc:
        message = str(exc)
        if problem.name not in message:
            message = f"PAN problem {problem.name}: {message}"
        raise InputError(message) from None
    by_none = sum(1 for t in problem.unknown if t.author == UNKNOWN_AUTHOR)
    return replace(
        study,
        settings={
            "problem": problem.name,
            "candidates": len(problem.candidates),
            "unknown_texts": len(problem.unknown),
            "unknown_by_no_candidate": by_none,
            "all_known": True,
        },
    )


def _training_items(corpus: Corpus, preparer: TextPreparer, *, exclude: set[str]) -> list[Item]:
    out = []
    for d in corpus.documents:
        if d.topic is None or d.doc_id in exclude:
            continue
        try:
            p = preparer.prepare(d.text)
        except InputError:
            continue  # nothing left after preparation: useless for training, not an error
        out.append(
            Item(f"train:{d.doc_id}", d.text, p.content_words, author=d.author, topic=d.topic)
        )
    return out


def build_topic_study(
    corpus: Corpus,
    preparer: TextPreparer,
    *,
    per_topic: int = 10,
    length: int | None = 100,
    random_state: RandomState = 0,
) -> Study:
    """Queries and 5-NN reference texts per topic; the rest is training data.

    Only documents with at least N content words are drawn (default N = 100), so every query is
    a bag of exactly N words. With train/test splits, queries come from the test split.

    Parameters
    ----------
    corpus
        The corpus (at least 2 topics).
    preparer
        Normalises the texts into content words.
    per_topic
        The queries, and the reference texts, drawn per topic.
    length
        N, or ``None`` for the shortest document drawn.
    random_state
        The seed or generator of the draws.

    Returns
    -------
    Study
        The topic study.

    Raises
    ------
    InputError
        If the corpus has fewer than 2 topics or a topic has too few documents of N words.
    """
    per_topic = check_positive_int(per_topic, name="documents per topic")
    topics = corpus.topics
    if len(topics) < 2:
        raise InputError(
            f"dataset {corpus.name!r} needs at least 2 topics for topic classification, "
            f"found {len(topics)}"
        )
    rng = check_random_state(random_state)
    prepared: dict[str, PreparedDocument] = {}
    for d in corpus.documents:
        if d.topic is None:
            continue
        try:
            prepared[d.doc_id] = preparer.prepare(d.text)
        except InputError:
            continue
    n = check_positive_int(length, name="length N") if length is not None else None
    queries: list[Item] = []
    known: list[Item] = []
    drawn: set[str] = set()
    for topic in topics:
        docs = [d for d in corpus.documents if d.topic == topic and d.doc_id in prepared]
        eligible = [d for d in docs if n is None or len(prepared[d.doc_id].content_words) >= n]
        order = [eligible[int(i)] for i in rng.permutation(len(eligible))]
        if corpus.has_splits:
            q_pool = [d for d in order if d.split == "test"]
            k_pool = [d for d in order if d.split != "test"]
        else:
            q_pool = order[:per_topic]
            k_pool = order[per_topic:]
        if len(q_pool) < per_topic or len(k_pool) < per_topic:
            raise InputError(
                f"topic {topic!r} has {len(eligible)} documents with at least N={n} content "
                f"words; {2 * per_topic} are needed (lower `per_topic` or `length`)"
            )
        for role, pool, sink in (("query", q_pool, queries), ("known", k_pool, known)):
            for d in pool[:per_topic]:
                drawn.add(d.doc_id)
                p = prepared[d.doc_id]
                k = n if n is not None else len(p.content_words)
                text, words = _cut(p, k)
                sink.append(Item(f"{role}:{d.doc_id}", text, words, author=d.author, topic=topic))
    if n is None:
        n = min(len(i.words) for i in queries + known)
        queries = [Item(i.item_id, i.text, i.words[:n], i.author, i.topic) for i in queries]
        known = [Item(i.item_id, i.text, i.words[:n], i.author, i.topic) for i in known]
    train = [
        Item(f"train:{d.doc_id}", d.text, prepared[d.doc_id].content_words, d.author, d.topic)
        for d in corpus.documents
        if d.doc_id in prepared and d.doc_id not in drawn
    ]
    return Study(
        task="topic",
        known=tuple(known),
        queries=tuple(queries),
        train=tuple(train),
        length=n,
        corpus=corpus.summary(),
        settings={"per_topic": per_topic},
    )


def build_study(
    corpus: Corpus,
    preparer: TextPreparer,
    *,
    task: str = "auto",
    known_words: int = 2000,
    snippet_words: int = 1000,
    length: int | None = None,
    max_authors: int | None = None,
    per_topic: int = 10,
    random_state: RandomState = 0,
    all_known: bool = False,
) -> Study:
    """Author study when the corpus has authors (``task="auto"``), else a topic study;
    ``all_known``: the realistic author study (:func:`build_realistic_study`).

    Parameters
    ----------
    corpus
        The corpus.
    preparer
        Normalises the texts into content words.
    task
        ``"auto"``, ``"author"`` or ``"topic"``.
    known_words
        The words of each known text (author study).
    snippet_words
        The words of each snippet (author study).
    length
        N, or ``None`` for the study's default.
    max_authors
        Keep the first this many authors, or ``None`` for all (author study).
    per_topic
        The queries, and the reference texts, drawn per topic (topic study).
    random_state
        The seed or generator of the draws (topic study).
    all_known
        Build the realistic author study.

    Returns
    -------
    Study
        The study.

    Raises
    ------
    InvalidParameterError
        If ``task`` is unknown, or ``all_known`` is given for a topic study.
    """
    if task == "auto":
        task = "author" if corpus.authors else "topic"
    if task not in TASKS:
        raise InvalidParameterError(f"task must be one of auto, {', '.join(TASKS)}, got {task!r}")
    if task == "author":
        return build_author_study(
            corpus,
            preparer,
            known_words=known_words,
            snippet_words=snippet_words,
            length=length,
            max_authors=max_authors,
            all_known=all_known,
        )
    if all_known:
        raise InvalidParameterError("all known text (`all_known`) applies to author studies only")
    return build_topic_study(
        corpus,
        preparer,
        per_topic=per_topic,
        length=length if length is not None else 100,
        random_state=random_state,
    )
