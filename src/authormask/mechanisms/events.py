"""``emp-event``: Earth Mover's privacy on the events of a text (who did what, to what), written
back as plain sentences by a public grammar.

emp-write keeps the nouns and has a public model write the rest: a list of nouns. emp-sentence
writes real sentences, but its events are a public bank's. ``emp-event`` keeps the text's own
events, each perturbed, and writes each as a plain sentence:

* **Events.** A public rule on spaCy's dependency parse of the text (the packaged
  ``en_core_web_md``; whitespace runs made one space first, so layout moves nothing) finds the
  clauses: every verb (universal part of speech ``VERB``, not an auxiliary) that heads a main,
  coordinated, complement, adverbial or open clause (``ROOT``, ``conj``, ``ccomp``, ``advcl``,
  ``xcomp``, ``parataxis``) and whose lemma is in the public verb lexicon. Each is one *event*
  of four positions: its **agent** (the subject, or for a conjoined or open clause its head's;
  for a passive clause the ``by`` object, its subject becoming the theme; ``someone`` where
  there is none), its **verb** (the lemma), its **frame** (``direct`` for a direct object, the
  preposition of its first prepositional object among :data:`FRAMES`, else ``none``) and its
  **theme** (that object; ``something`` under ``none``). An agent or theme is a pronoun
  (:data:`PRONOUNS`, object forms read as subject forms), a noun of emp-write's public lexicon
  or a name of the public name alphabet; anything else reads as ``someone``/``something``.
  E, the number of events, and which argument positions hold names, are released.
* **Noise** (Theorem 2 and k-ary randomized response, composed by eq. 6): each agent and theme
  that is not a name gets Fernandes' n-dimensional Laplace noise in the word vectors' space
  (radius ``Gamma(n, 1/epsilon)``) and is decoded, as emp-write's ``posterior`` decoder does,
  to a word of the argument lexicon (the nouns and :data:`PRONOUNS`; prior: Zipf on the
  embeddings' frequency ranks); each verb the same in the same space, decoded to the verb
  lexicon; each name goes through k-ary randomized response on the public name alphabet at
  ``name_weight * epsilon`` (as emp-sentence's names, so a document's surrogate cast
  survives); each frame through k-ary randomized response on :data:`FRAMES` at
  ``frame_weight * epsilon``.
* **Writing** (post-processing, Lemma 3): each event becomes ``Agent verb-ed [frame] theme.``
  in the simple past (lemminflect's inflection table), a noun with ``the``, a name capitalised,
  a pronoun in its subject or object form; an event whose released agent is the previous one's
  joins it with ``and`` (three at most); a paragraph every :data:`PARAGRAPH` sentences.

Guarantee. For two documents with the same number E of events and the same name positions,
``P[out | v] <= exp(epsilon * (sum_j d_w(a_j, a'_j) + sum_i d_w(x_i, x'_i) + u * #{names
changed} + f * #{frames changed})) * P[out | v']``, the first sum over agent and theme
positions, the second over verbs (Euclidean distance of word vectors). Not released: every
other word, the tense, voice, word order within a clause, punctuation, sentence boundaries,
capitals and layout.

Choices written down. The lexicons are public rules on the word alone: the verb lexicon is the
verb lemmas of lemminflect's inflection dictionary with a vector (a function word never); the
argument lexicon is emp-write's noun lexicon and the pronouns. The parse reads the whole text
(casing, punctuation, context): it decides E and which positions exist, which the statement
says; the guarantee compares documents with the same E. The tense is fixed (past), the
preposition of a frame outside :data:`FRAMES` is dropped (``none``).

Its spec (emp-event) and factory, as the registry offers it:
:mod:`~authormask.mechanisms.events_spec`.
"""

from __future__ import annotations

import copy
import functools
import hashlib
import re
import threading
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from authormask._version import __version__
from authormask.accounting.statement import PrivacyStatement, exact
from authormask.defaults import FRAME_WEIGHT, NAME_WEIGHT
from authormask.exceptions import InvalidParameterError
from authormask.mechanisms._base import IdentityKernel, Mechanism, Output
from authormask.mechanisms.earth_movers_kernel import EarthMoversMechanism
from authormask.mechanisms.inputs import word_parts
from authormask.mechanisms.names import NameKernel
from authormask.mechanisms.sentences import _product_down
from authormask.randomness import SEEDED, UNSEEDED
from authormask.text.clean import INVISIBLE_CHARACTERS_POLICY, clean_text
from authormask.validation import check_epsilon

__all__ = [
    "FRAMES",
    "PRONOUNS",
    "EMPEvent",
    "Event",
    "EventUnit",
    "document_events",
    "event_words",
    "remember_events",
    "verb_lexicon",
    "write_events",
]

#: the pronouns an agent or theme may be (subject forms); ``someone``/``something`` stand for a
#: missing or unreleasable agent/theme
PRONOUNS = ("i", "you", "he", "she", "it", "we", "they", "someone", "something")
#: the subject form of each object or reflexive form
SUBJECT_FORM = {
    "me": "i",
    "myself": "i",
    "him": "he",
    "himself": "he",
    "her": "she",
    "herself": "she",
    "us": "we",
    "ourselves": "we",
    "them": "they",
    "themselves": "they",
    "yourself": "you",
    "yourselves": "you",
    "itself": "it",
    "somebody": "someone",
    "anyone": "someone",
    "anybody": "someone",
    "everyone": "someone",
    "everybody": "someone",
    "anything": "something",
    "everything": "something",
    "nothing": "something",
}
OBJECT_FORM = {"i": "me", "he": "him", "she": "her", "we": "us", "they": "them"}
#: the frames an event's theme may stand in (public alphabet of the frame's randomized response)
FRAMES = (
    "none",
    "direct",
    "about",
    "across",
    "after",
    "against",
    "along",
    "around",
    "at",
    "before",
    "behind",
    "beside",
    "between",
    "by",
    "down",
    "for",
    "from",
    "in",
    "into",
    "like",
    "of",
    "off",
    "on",
    "onto",
    "out",
    "over",
    "past",
    "through",
    "to",
    "toward",
    "towards",
    "under",
    "up",
    "upon",
    "with",
    "without",
)
#: the dependency labels of a verb that heads an event
CLAUSES = frozenset({"ROOT", "conj", "ccomp", "advcl", "xcomp", "parataxis"})
#: the missing agent and theme
NO_AGENT = "someone"
NO_THEME = "something"
#: an argument a released event may hold: a noun among the embeddings' most frequent words
COMMON_RANK = 30_000
#: events joined into one sentence at most, and sentences to a paragraph (public constants)
JOINED = 3
PARAGRAPH = 8

REFERENCE = (
    "Fernandes, Dras & McIver, Generalised Differential Privacy for Text Document Processing, "
    "POST 2019: Theorem 2 (the n-dimensional Laplace mechanism, on word vectors), eq. 6 "
    "(composition over positions), Lemma 3 (post-processing); k-ary randomized response "
    "(Kairouz, Oh & Viswanath 2016) for names and frames; the events and their writing are "
    "authormask's"
)
TITLE = (
    "Earth Mover's privacy on each event of the text (its agent, verb and theme; names and "
    "frames by randomized response), written as plain sentences"
)
FLOATING_POINT = (
    "no noisy vector is released; the Gamma radii are exact sums of unbounded Exp(1) draws (no "
    "cap); each noisy vector is decoded among the 32 words nearest to it (a float32 screen, "
    "scored in float64: a deterministic function of the noisy vector, post-processing whatever "
    "its rounding); a name's or frame's redraw probability is computed in 60-digit decimals and "
    "rounded up to a double (more noise, never less), its coin exact for that double and its "
    "uniform redraw an unbiased integer"
)
_SPACES = re.compile(r"\s+")
#: the words the parser reads at once: a longer text is parsed in parts of this many words
#: (cut by words of the text with its layout removed, so the layout moves no cut)
PART_WORDS = 8192


#: one parse at a time (spaCy's pipelines are not meant to be called from two threads)
_LOCK = threading.Lock()
#: the events of the texts parsed last (a text's SHA-256 and the rule's inputs -> its events),
#: oldest first: a text met again (the same story at another epsilon of an evaluation) is not
#: parsed again; the parse is deterministic, so this changes no result, only the time
_SEEN: dict[tuple[int, object, bytes], tuple[Event, ...]] = {}
_SEEN_TEXTS = 4096


def remember_events(n: int) -> None:
    """How many texts' events emp-event remembers from now on (the remembered ones are
    forgotten): 0 for none, as ``authormask serve`` sets it, where one user's text must not
    make another user's release answer faster.

    Parameters
    ----------
    n
        The number of texts, >= 0.
    """
    global _SEEN_TEXTS
    with _LOCK:
        _SEEN_TEXTS = max(0, int(n))
        _SEEN.clear()


@functools.cache
def verb_lexicon() -> tuple[frozenset[str], str]:
    """The verb lemmas of lemminflect's inflection dictionary (lower case, letters only): the
    public rule for which verbs an event may hold, and its description (size, SHA-256).

    Returns
    -------
    tuple[frozenset[str], str]
        The lemmas, and their description.
    """
    from lemminflect import Inflections

    table = Inflections()._getInflDict()
    lemmas = frozenset(
        w
        for w, forms in table.items()
        if w.isalpha() and w.islower() and any(t.startswith("VB") for t in forms)
    )
    digest = hashlib.sha256("\n".join(sorted(lemmas)).encode()).hexdigest()
    return lemmas, f"the {len(lemmas)} verb lemmas of lemminflect's table (sha256 {digest[:16]})"


@functools.cache
def dictionary_nouns() -> frozenset[str]:
    """The lower-case words lemminflect's inflection table gives a noun form (``NN``/``NNS``):
    with the noun lexicon and the embeddings' first :data:`COMMON_RANK` words, what a released
    argument may be.

    Returns
    -------
    frozenset[str]
        The words (lemmas and their noun forms).
    """
    from lemminflect import Inflections

    out: set[str] = set()
    for forms in Inflections()._getInflDict().values():
        for tag in ("NN", "NNS"):
            out.update(w for w in forms.get(tag, ()) if w.isalpha() and w.islower())
    return frozenset(out)


@functools.cache
def common_verbs() -> tuple[frozenset[str], str]:
    """The verbs a released event may hold: the lemmas (lemminflect's) of the words the
    packaged tag counts of the writer's corpus tag ``VERB`` at least half the time, that are in
    :func:`verb_lexicon`; and their description.

    Returns
    -------
    tuple[frozenset[str], str]
        The lemmas, and their description.
    """
    from lemminflect import getLemma

    from authormask.models.lexicon import packaged_tags

    verbs, _ = verb_lexicon()
    source, sha, tags = packaged_tags()
    found: set[str] = set()
    for word, counts in tags.items():
        if 2 * counts.get("VERB", 0) >= sum(counts.values()):
            found.update(lemma for lemma in getLemma(word, upos="VERB") if lemma in verbs)
    out = frozenset(found)
    digest = hashlib.sha256("\n".join(sorted(out)).encode()).hexdigest()
    return out, (
        f"the {len(out)} lemmas of the words tagged VERB in at least half their uses in {source} "
        f"(tags sha256 {sha[:16]}; lemmas sha256 {digest[:16]})"
    )


@functools.cache
def _past(lemma: str) -> str:
    from lemminflect import getInflection

    forms = getInflection(lemma, tag="VBD")
    return forms[0] if forms else lemma + "ed"


_RULES: dict[bytes, object] = {}


def _rule_key(*sets: frozenset[str]) -> object:
    """One object per distinct (verbs, arguments, names): the parses remembered are keyed by
    its identity, so two mechanisms built with the same lexicons share them."""
    digest = hashlib.sha256(b"\0".join("\n".join(sorted(s)).encode("utf-8") for s in sets)).digest()
    return _RULES.setdefault(digest, object())


@dataclass(frozen=True)
class Event:
    """One event: its agent, verb (lemma), frame and theme, as the rule reads them.

    Attributes
    ----------
    agent
        A pronoun, noun or name (lower case); :data:`NO_AGENT` when there is none.
    verb
        The verb's lemma.
    frame
        One of :data:`FRAMES`.
    theme
        A pronoun, noun or name; :data:`NO_THEME` under ``none``.
    """

    agent: str
    verb: str
    frame: str
    theme: str


@dataclass(frozen=True)
class EventUnit:
    """A document as emp-event prepares it: its events, in order.

    Attributes
    ----------
    events
        The events (E of them).
    diagnostics
        Private counts.
    """

    events: tuple[Event, ...]
    diagnostics: dict[str, int] = field(default_factory=dict)

    @property
    def words(self) -> tuple[str, ...]:
        """The words its events are written with, in reading order (:func:`event_words`)."""
        return event_words(self.events)


def event_words(events: Sequence[Event]) -> tuple[str, ...]:
    """The words ``events`` are written with (:func:`write_events`), in reading order: each
    event's agent, its verb in the simple past and, where its frame is not ``none``, its theme
    (a pronoun in the form it is written in, lower case).

    Parameters
    ----------
    events
        The events.

    Returns
    -------
    tuple[str, ...]
        The words.
    """
    out: list[str] = []
    for e in events:
        out += [e.agent, _past(e.verb).lower()]
        if e.frame != "none":
            out.append(OBJECT_FORM.get(e.theme, e.theme))
    return tuple(out)


def _argument(token: Any, allowed: Callable[[str], bool]) -> str | None:
    """The argument ``token`` heads as a releasable word, or None."""
    if token is None:
        return None
    word = str(token.lower_)
    if token.pos_ == "PRON":
        word = SUBJECT_FORM.get(word, word)
        return word if word in PRONOUNS else None
    if token.pos_ in ("NOUN", "PROPN") and allowed(word):
        return word
    return None


def _child(token: Any, labels: Iterable[str]) -> Any:
    wanted = set(labels)
    return next((c for c in token.children if c.dep_ in wanted), None)


def _subject(verb: Any) -> tuple[Any, bool]:
    """The subject token of ``verb`` (climbing to the head of a conjoined or open clause, three
    steps at most) and whether it is a passive subject."""
    token = verb
    for _ in range(4):
        found = _child(token, ("nsubj", "nsubjpass"))
        if found is not None:
            return found, found.dep_ == "nsubjpass"
        if token.dep_ not in ("conj", "xcomp") or token.head is token:
            break
        token = token.head
    return None, False


def document_events(doc: Any, verbs: frozenset[str], allowed: Callable[[str], bool]) -> list[Event]:
    """The events of a parsed document (module notes), in text order.

    Parameters
    ----------
    doc
        A spaCy ``Doc`` with tags, lemmas and a dependency parse.
    verbs
        The verb lexicon.
    allowed
        Whether a lower-case noun or name may be an argument (the argument lexicon).

    Returns
    -------
    list[Event]
        The events.
    """
    out: list[Event] = []
    for t in doc:
        if t.pos_ != "VERB" or t.dep_ not in CLAUSES:
            continue
        lemma = t.lemma_.lower()
        if lemma not in verbs:
            continue
        subject, passive = _subject(t)
        if passive:
            by = _child(t, ("agent",))
            agent = _argument(_child(by, ("pobj",)) if by is not None else None, allowed)
            theme = _argument(subject, allowed)
            frame = "direct" if theme is not None else "none"
        else:
            agent = _argument(subject, allowed)
            theme, frame = _argument(_child(t, ("dobj",)), allowed), "direct"
            if theme is None:
                frame = "none"
                for prep in (c for c in t.children if c.dep_ == "prep"):
                    obj = _argument(_child(prep, ("pobj",)), allowed)
                    if obj is not None and prep.lower_ in FRAMES:
                        theme, frame = obj, prep.lower_
                        break
        out.append(Event(agent or NO_AGENT, lemma, frame, theme or NO_THEME))
    return out


def _surface(word: str, names: frozenset[str], *, subject: bool) -> str:
    if word in PRONOUNS:
        if word == "i" and subject:
            return "I"
        return word if subject else OBJECT_FORM.get(word, word)
    if word in names:
        return word[:1].upper() + word[1:]
    return f"the {word}"


def write_events(events: Sequence[Event], names: frozenset[str]) -> str:
    """The released events as plain sentences (module notes): post-processing of released
    words only.

    Parameters
    ----------
    events
        The released events.
    names
        Lower-case words written with a capital (the public name lists).

    Returns
    -------
    str
        The text.

    Examples
    --------
    >>> write_events([Event("anna", "see", "direct", "he"), Event("anna", "run", "to", "house"),
    ...               Event("someone", "sing", "none", "something")], frozenset({"anna"}))
    'Anna saw him and ran to the house. Someone sang.'
    """
    sentences: list[str] = []
    clauses: list[str] = []
    agent: str | None = None
    for e in events:
        tail = _past(e.verb)
        if e.frame == "direct":
            tail += " " + _surface(e.theme, names, subject=False)
        elif e.frame != "none":
            tail += f" {e.frame} " + _surface(e.theme, names, subject=False)
        if e.agent == agent and len(clauses) < JOINED:
            clauses.append(tail)
            continue
        if clauses:
            sentences.append(" and ".join(clauses) + ".")
        head = _surface(e.agent, names, subject=True)
        clauses = [head[:1].upper() + head[1:] + " " + tail]
        agent = e.agent
    if clauses:
        sentences.append(" and ".join(clauses) + ".")
    paragraphs = [
        " ".join(sentences[i : i + PARAGRAPH]) for i in range(0, len(sentences), PARAGRAPH)
    ]
    return "\n\n".join(paragraphs)


class EMPEvent(Mechanism):
    """``emp-event`` (module notes).

    Parameters
    ----------
    embeddings : Embeddings
        The word vectors (agents, themes and verbs are perturbed in their space).
    epsilon : float
        Per unit of Euclidean distance of word vectors.
    nouns : frozenset[str]
        The noun lexicon (emp-write's).
    nouns_description : str
        Its public description.
    verbs : frozenset[str]
        The verb lexicon.
    verbs_description : str
        Its public description.
    common : frozenset[str]
        The verbs a released event may hold (the decoder's; empty: every verb of the lexicon).
    common_description : str
        Their public description.
    pipeline : Any
        A spaCy ``Language`` with a tagger, lemmatizer and parser (loaded on first use when
        None).
    names : frozenset[str]
        Lower-case words written with a capital (the public name lists).
    name_alphabet : Sequence[str]
        The public names released by randomized response (lower case; at least two, or none).
    name_weight : float
        The weight of a name changed against a unit of word distance, > 0.
    frame_weight : float
        The weight of a frame changed against a unit of word distance, > 0.
    """

    #: it writes each verb in the simple past and a pronoun in its subject form, and releases
    #: its verbs as lemmas (post-processing of the released words)
    RENDERING = frozenset({"own-forms", "lemmas"})

    name = "emp-event"
    title = TITLE
    reference = REFERENCE

    def __init__(
        self,
        *,
        embeddings: Any,
        epsilon: float,
        nouns: frozenset[str],
        nouns_description: str,
        verbs: frozenset[str],
        verbs_description: str,
        common: frozenset[str] = frozenset(),
        common_description: str = "",
        pipeline: Any = None,
        names: frozenset[str] = frozenset(),
        name_alphabet: Sequence[str] = (),
        name_weight: float = NAME_WEIGHT,
        frame_weight: float = FRAME_WEIGHT,
    ) -> None:
        self.embeddings = embeddings
        self.epsilon = check_epsilon(epsilon)
        for label, weight in (("name_weight", name_weight), ("frame_weight", frame_weight)):
            if not (np.isfinite(weight) and weight > 0):
                raise InvalidParameterError(f"{label} must be > 0, got {weight!r}")
        self.name_weight = float(name_weight)
        self.frame_weight = float(frame_weight)
        vocabulary = set(embeddings.words)
        self.names = names
        self.name_kernel = (
            NameKernel(sorted(name_alphabet), _product_down(self.name_weight, self.epsilon))
            if name_alphabet
            else None
        )
        alphabet = frozenset(name_alphabet)
        self.arguments = frozenset(
            w for w in (nouns | frozenset(PRONOUNS)) if w in vocabulary and w not in alphabet
        )
        self.verbs = frozenset(w for w in verbs if w in vocabulary)
        if not self.verbs or not self.arguments:
            raise InvalidParameterError("emp-event needs verbs and arguments with vectors")
        self.nouns_description = nouns_description
        self.verbs_description = verbs_description
        words = frozenset(embeddings.words)
        frequent = frozenset(embeddings.words[:COMMON_RANK]) & dictionary_nouns()
        #: what a released argument and verb may be (the decoders' words: post-processing)
        self.arguments_out = (self.arguments & frequent) | (frozenset(PRONOUNS) & words)
        self.verbs_out = (self.verbs & common) if common else self.verbs
        if not self.verbs_out:
            raise InvalidParameterError("emp-event needs released verbs with vectors")
        self.common_description = common_description or verbs_description
        self.argument_kernel: Any = EarthMoversMechanism(
            embeddings,
            epsilon=self.epsilon,
            decoder="posterior",
            never_sent=words - self.arguments_out,
        )
        self.verb_kernel: Any = EarthMoversMechanism(
            embeddings, epsilon=self.epsilon, decoder="posterior", never_sent=words - self.verbs_out
        )
        self.frame_kernel = NameKernel(
            sorted(FRAMES), _product_down(self.frame_weight, self.epsilon)
        )
        self.name_noise: NameKernel | IdentityKernel | None = self.name_kernel
        self.frame_noise: NameKernel | IdentityKernel = self.frame_kernel
        self._pipeline = pipeline
        #: the parser's part of the key of the parses remembered: the packaged pipeline, or
        #: the one given (by identity)
        self._pipeline_key: object = "packaged" if pipeline is None else id(pipeline)
        #: what the rule reads besides the text (the lexicons), shared by mechanisms built with
        #: the same ones: the key of the parses remembered
        self._rule = _rule_key(self.verbs, self.arguments, alphabet)

    # --- preparation ------------------------------------------------------------------------

    @property
    def pipeline(self) -> Any:
        if self._pipeline is None:
            from authormask.text.pipeline import load_pipeline

            self._pipeline = load_pipeline(exclude=["ner"], purpose="emp-event's parse")
        return self._pipeline

    def _allowed(self, word: str) -> bool:
        return word in self.arguments or (
            self.name_kernel is not None and word in self.name_kernel.index
        )

    def prepare(self, text: str) -> EventUnit:
        """The document's events.

        Parameters
        ----------
        text
            The document.

        Returns
        -------
        EventUnit
            Its unit.
        """
        joined = _SPACES.sub(" ", clean_text(text)).strip()
        key = (id(self._rule), self._pipeline_key, hashlib.sha256(joined.encode("utf-8")).digest())
        with _LOCK:
            events = _SEEN.get(key)
            if events is None:
                events = tuple(
                    e
                    for part in (word_parts([joined], PART_WORDS) if joined else ())
                    for e in document_events(self.pipeline(part), self.verbs, self._allowed)
                )
                if _SEEN_TEXTS:
                    while len(_SEEN) >= _SEEN_TEXTS:
                        del _SEEN[next(iter(_SEEN))]
                    _SEEN[key] = events
        return EventUnit(events, {"events": len(events)})

    def prepare_parts(self, parts: Iterable[str]) -> Any:
        """The whole document, joined (a document is one unit).

        Parameters
        ----------
        parts
            The document, part by part.

        Yields
        ------
        EventUnit
            Its unit.
        """
        yield self.prepare("".join(parts))

    def diagnostics(self, unit: EventUnit) -> dict[str, int]:
        """Private counts of a prepared unit.

        Parameters
        ----------
        unit
            A prepared unit.

        Returns
        -------
        dict[str, int]
            The counts.
        """
        return dict(unit.diagnostics)

    def released_words(self, unit: EventUnit) -> tuple[str, ...]:
        """Each event's agent, verb and theme words, in order (the verbs as lemmas).

        Parameters
        ----------
        unit
            A prepared unit.

        Returns
        -------
        tuple[str, ...]
            Its words.
        """
        return tuple(unit.words)

    def units(self, unit: EventUnit) -> int:
        """Four positions per event, the work it takes.

        Parameters
        ----------
        unit
            A prepared unit.

        Returns
        -------
        int
            The units of work.
        """
        return 4 * len(unit.events)

    def without_noise(self) -> EMPEvent:
        """Every sampler switched off: every event as the rule reads it (the limit epsilon ->
        infinity).

        Returns
        -------
        EMPEvent
            The copy.
        """
        off = copy.copy(self)
        off.argument_kernel = IdentityKernel(self.embeddings)
        off.verb_kernel = IdentityKernel(self.embeddings)
        off.name_noise = IdentityKernel(self.embeddings)
        off.frame_noise = IdentityKernel(self.embeddings)
        return off

    # --- release ----------------------------------------------------------------------------

    def _is_name(self, word: str) -> bool:
        return self.name_kernel is not None and word in self.name_kernel.index

    def perturb(
        self,
        documents: Sequence[EventUnit],
        rngs: Sequence[np.random.Generator],
        *,
        progress: Callable[[int], None] | None = None,
    ) -> list[Output]:
        """Each document draws from its generator the arguments' noise (agents and themes
        that are not names, in order), the verbs' noise (in order), its names (in order) and
        its frames (in order); the rest is post-processing.

        Parameters
        ----------
        documents
            The prepared units.
        rngs
            One generator per unit (its document's).
        progress
            Called with the units of work done.

        Returns
        -------
        list[Output]
            One output per unit.
        """
        emb = self.embeddings
        out: list[Output] = []
        for unit, rng in zip(documents, rngs, strict=True):
            args = [w for e in unit.events for w in (e.agent, e.theme)]
            plain = [w for w in args if not self._is_name(w)]
            named = [w for w in args if self._is_name(w)]
            noisy_args = self.argument_kernel.noisy_vectors(
                [emb.index_of(w) for w in plain], random_state=rng
            )
            noisy_verbs = self.verb_kernel.noisy_vectors(
                [emb.index_of(e.verb) for e in unit.events], random_state=rng
            )
            names = self.name_noise
            released_names = (
                names.release(named, rng) if isinstance(names, NameKernel) else list(named)
            )
            frames = self.frame_noise
            released_frames = (
                frames.release([e.frame for e in unit.events], rng)
                if isinstance(frames, NameKernel)
                else [e.frame for e in unit.events]
            )
            plain_rows = self.argument_kernel.snap(noisy_args) if plain else []
            verb_rows = self.verb_kernel.snap(noisy_verbs) if unit.events else []
            plain_out = iter(emb.words[int(i)] for i in plain_rows)
            named_out = iter(released_names)
            released_args = [next(named_out) if self._is_name(w) else next(plain_out) for w in args]
            events = [
                Event(released_args[2 * i], emb.words[int(v)], f, released_args[2 * i + 1])
                for i, (v, f) in enumerate(zip(verb_rows, released_frames, strict=True))
            ]
            out.append(Output(write_events(events, self.names), event_words(events)))
            if progress is not None:
                progress(self.units(unit))
        return out

    # --- statement --------------------------------------------------------------------------

    def statement(self, *, seeded: bool) -> PrivacyStatement:
        """The statement: epsilon per unit of word distance at every agent, theme and verb;
        ``name_weight * epsilon`` per name changed, ``frame_weight * epsilon`` per frame.

        Parameters
        ----------
        seeded
            Whether the release is seeded (the statement says so, never the seed).

        Returns
        -------
        PrivacyStatement
            The statement.
        """
        eps = self.epsilon
        u = self.name_weight
        f = self.frame_weight
        e = self.embeddings.identity
        k = 0 if self.name_kernel is None else len(self.name_kernel.alphabet)
        return PrivacyStatement(
            randomness=SEEDED if seeded else UNSEEDED,
            mechanism=self.name,
            title=self.title,
            reference=REFERENCE,
            epsilon=eps,
            epsilon_unit=(
                f"per unit of Euclidean distance between {e.dimension}-d word vectors of "
                f"{e.name} at each agent, theme and verb; each name (one of {k} public names) "
                f"gets {exact(u)} * epsilon = {exact(u * eps)} per name changed, each frame (one "
                f"of {len(FRAMES)}) {exact(f)} * epsilon = {exact(f * eps)} per frame changed"
            ),
            embeddings=e.to_dict(),
            model=None,
            floating_point=FLOATING_POINT,
            version=__version__,
            guarantee=(
                "metric DP for the sum metric over the events' positions (eq. 6): for documents "
                "v, v' with the same number E of events and the same name positions, "
                f"P[out | v] <= exp({exact(eps)} * (sum_j d_w(a_j, a'_j) + sum_i d_w(x_i, x'_i) "
                f"+ {exact(u)} * #{{names changed}} + {exact(f)} * #{{frames changed}})) * "
                "P[out | v'] (a_j the agents and themes that are not names, x_i the verbs); the "
                "decoding and the writing are post-processing (Lemma 3)"
            ),
            document_bound=(
                f"epsilon_doc(v, v') = {exact(eps)} * (sum over argument positions of d_w + sum "
                f"over verb positions of d_w) + {exact(u * eps)} * names changed + "
                f"{exact(f * eps)} * frames changed (documents with the same E and name "
                "positions)"
            ),
            released_unchanged=(
                "the number E of events (so roughly the document's length) and which agents "
                "and themes are names of the public lists; the events' order, through their "
                "noisy versions. Not released: every other word (adjectives, adverbs, "
                "auxiliaries, clauses that are not events), tense, voice, word order within a "
                "clause, punctuation, sentence boundaries, capitals and layout as written (the "
                "parse reads them to find the events, so they can change E and which events "
                "are found: the caveats)"
            ),
            parameters={
                "name weight": u,
                "name epsilon": u * eps,
                "frame weight": f,
                "frame epsilon": f * eps,
                "events": "spaCy en_core_web_md's parse of the text cleaned of invisible "
                f"characters, with every run of whitespace made one space, in parts of "
                f"{PART_WORDS:,} words: a VERB (not AUX) whose dependency is ROOT, conj, "
                "ccomp, advcl, xcomp or parataxis and whose lemma is in the verb lexicon; "
                "agent: its nsubj (for conj/xcomp its head's, three steps at most), for a "
                "passive its by-object (the subject the theme); theme: its dobj, else the "
                f"object of its first preposition among the frames; {NO_AGENT}/{NO_THEME} "
                "where none is releasable",
                "verbs": self.verbs_description,
                "arguments": f"{self.nouns_description}; and the pronouns "
                f"{', '.join(PRONOUNS)} (object and reflexive forms read as subject forms)",
                "names": (
                    f"k-ary randomized response on {k} public names: a name is redrawn "
                    f"uniformly with probability {self.name_kernel.redraw!r}, else kept"
                    if self.name_kernel is not None
                    else "none: every argument through the word kernel"
                ),
                "frames": f"k-ary randomized response on {len(FRAMES)} frames ({', '.join(FRAMES)})"
                f": redrawn uniformly with probability {self.frame_kernel.redraw!r}, else kept",
            },
            policies={
                "invisible characters": INVISIBLE_CHARACTERS_POLICY,
                "decoder": "each noisy vector to the released word with the highest posterior "
                "under a Zipf prior on the embeddings' frequency ranks, among the 32 nearest "
                f"(post-processing): an argument among the lexicon's nouns in the embeddings' "
                f"first {COMMON_RANK:,} words with a noun form in lemminflect's table, and the "
                "pronouns, a verb among "
                f"{self.common_description}",
                "writing": "each event as 'Agent verb-ed [frame] theme.' in the simple past "
                "(lemminflect's table), a noun with 'the', a name capitalised, a pronoun in its "
                f"subject or object form; events with the same released agent joined by 'and' "
                f"({JOINED} at most); a paragraph every {PARAGRAPH} sentences",
            },
            caveats=(
                "E is released, and the parse that finds the events reads the whole text "
                "(casing, punctuation, context): the guarantee compares documents with the same "
                "E and name positions, position by position; two texts whose parses find "
                "different events are not compared",
                "the events are released in order: a writer's choice of verbs and nouns is "
                "protected only as far as epsilon * d_w bounds it",
                "which arguments are names is released: under the default entity step names are "
                "mostly surrogates drawn at random",
            ),
        )
