"""How the registry builds each mechanism from its checked parameters: embeddings, stopwords,
text preparers and models loaded and wired in here, so mechanisms never import them. Every
import of a mechanism or a loader is made when a mechanism is built, so the registry itself
stays light."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from authormask.exceptions import (
    AuthormaskError,
    EmbeddingsError,
    InputError,
    InvalidParameterError,
)

if TYPE_CHECKING:
    from authormask.mechanisms._base import Mechanism


def _naming(exc: AuthormaskError, parameter: str) -> AuthormaskError:
    """``exc``, an error in what parameter ``parameter`` names (a vector file, a model
    directory), with the parameter named first between backquotes, as every front end shows
    its own (the command line: ``--embeddings``); the same class, so its exit status is too."""
    return type(exc)(f"`{parameter}`: {exc}")


def _embeddings(value: Any, vocab_size: int | None, cache_dir: Any) -> Any:
    """The word vectors ``value`` names (``vocab_size`` and ``cache_dir`` checked at the
    boundary, :func:`~authormask.core.registry.check_parameters`)."""
    from authormask.embeddings import Embeddings, load_embeddings

    if isinstance(value, Embeddings):
        return value.restrict(vocab_size)
    if not isinstance(value, (str, Path)):
        raise InvalidParameterError(
            f"`embeddings` must be a name, a path or an Embeddings object, got {value!r}"
        )
    try:
        return load_embeddings(
            str(value), vocab_size=vocab_size, cache_dir=cache_dir if cache_dir else "default"
        )
    except (EmbeddingsError, InputError) as exc:
        raise _naming(exc, "embeddings") from None


def _stopwords(value: Any) -> tuple[frozenset[str], str]:
    from authormask.text import load_stopwords

    if isinstance(value, (str, Path)):
        try:
            return load_stopwords(str(value))
        except InputError as exc:
            raise _naming(exc, "stopwords") from None
    if isinstance(value, (set, frozenset, list, tuple)):
        from authormask.text.stopwords import describe_stopwords

        words = frozenset(str(w).lower() for w in value)
        return words, describe_stopwords(words, "a custom list")
    raise InvalidParameterError(
        f"`stopwords` must be a name, a file or a set of words, got {value!r}"
    )


def _preparer(p: dict[str, Any]) -> tuple[Any, str]:
    from authormask.text import TextPreparer

    emb = _embeddings(p["embeddings"], p["vocab_size"], p["cache_dir"])
    words, described = _stopwords(p["stopwords"])
    return TextPreparer(emb, stopwords=words, oov=p["oov"], oov_map_to=p["oov_map_to"]), described


def _canonical(p: dict[str, Any]) -> tuple[Any, str]:
    from authormask.text.canonical import CanonicalPreparer

    emb = _embeddings(p["embeddings"], p["vocab_size"], p["cache_dir"])
    words, described = _stopwords(p["stopwords"])
    if not any(w in emb for w in words):
        raise InvalidParameterError(
            "the function-word list has no word with a vector in these embeddings (stopwords "
            "'none' leaves no class to perturb function words in)"
        )
    preparer = CanonicalPreparer(
        emb, function_words=words, oov_map_to=p["oov_map_to"], marks=p["marks"]
    )
    return preparer, described


def emp_doc(p: dict[str, Any]) -> Mechanism:
    """emp-doc (:class:`~authormask.mechanisms.document.EMPDoc`) from its parameters.

    Parameters
    ----------
    p
        The mechanism's checked parameters, by name.

    Returns
    -------
    Mechanism
        The mechanism.
    """
    from authormask.mechanisms.document import EMPDoc

    preparer, described = _canonical(p)
    return EMPDoc(
        embeddings=preparer.embeddings,
        epsilon=p["epsilon"],
        preparer=preparer,
        function_words_description=described,
        function_epsilon=p["function_epsilon"],
        decoder=p["decoder"],
    )


def emp_write(p: dict[str, Any]) -> Mechanism:
    """emp-write (:class:`~authormask.mechanisms.written.EMPWrite`) with its writer.

    Parameters
    ----------
    p
        The mechanism's checked parameters, by name.

    Returns
    -------
    Mechanism
        The mechanism.
    """
    from authormask.mechanisms.written import EMPWrite, all_function_words
    from authormask.models.writer import load_writer

    emb = _embeddings(p["embeddings"], p["vocab_size"], p["cache_dir"])
    words, described = _stopwords(p["stopwords"])
    released = None
    if p["content"] == "nouns":
        from authormask.models.lexicon import load_noun_lexicon

        lexicon = load_noun_lexicon(
            emb, all_function_words(words), cache_dir=p["cache_dir"] or "default"
        )
        released = (lexicon.nouns, lexicon.describe())
    return EMPWrite(
        embeddings=emb,
        epsilon=p["epsilon"],
        function_words=words,
        function_words_description=described,
        writer=load_writer(
            emb, all_function_words(words), released, cache_dir=p["cache_dir"] or "default"
        ),
        decoder=p["decoder"],
        prior_weight=p["prior_weight"],
        released=released,
    )


def _names(lexicon: frozenset[str]) -> tuple[frozenset[str], list[str]]:
    """The public lists' names (lower case: the words a writing step capitalises) and the name
    alphabet: the lists' one-word names that the noun lexicon releases (a name of several words
    is released word by word, and its words are names only where they are one)."""
    from authormask.text.entities import public_lists

    lists = public_lists()
    names = frozenset(
        w.lower() for entries in (lists.given_names, lists.surnames, lists.places) for w in entries
    )
    return names, sorted(w for w in names if " " not in w and w in lexicon)


def emp_sentence(p: dict[str, Any]) -> Mechanism:
    """emp-sentence (:class:`~authormask.mechanisms.sentences.EMPSentence`) with its noun
    mechanism (emp-write's, content nouns) and the public sentence bank.

    Parameters
    ----------
    p
        The mechanism's checked parameters, by name.

    Returns
    -------
    Mechanism
        The mechanism.
    """
    from authormask.mechanisms.sentences import EMPSentence
    from authormask.models.sentence_bank import load_sentence_bank

    words = emp_write({**p, "content": "nouns"})
    written: Any = words
    names, alphabet = _names(written.released[0])
    cache = "default" if p["cache_dir"] is None else p["cache_dir"]
    return EMPSentence(
        words=written,
        bank=load_sentence_bank(cache_dir=cache),
        epsilon=p["epsilon"],
        sentence_weight=p["sentence_weight"],
        names=names,
        name_alphabet=alphabet,
        name_weight=p["name_weight"],
    )


def emp_event(p: dict[str, Any]) -> Mechanism:
    """emp-event (:class:`~authormask.mechanisms.events.EMPEvent`) with emp-write's noun
    lexicon, the public verb lexicon and the public name alphabet.

    Parameters
    ----------
    p
        The mechanism's checked parameters, by name.

    Returns
    -------
    Mechanism
        The mechanism.
    """
    from authormask.mechanisms.events import EMPEvent, common_verbs, verb_lexicon
    from authormask.mechanisms.written import all_function_words
    from authormask.models.lexicon import load_noun_lexicon

    emb = _embeddings(p["embeddings"], p["vocab_size"], p["cache_dir"])
    function_words, _ = _stopwords(p["stopwords"])
    lexicon = load_noun_lexicon(
        emb, all_function_words(function_words), cache_dir=p["cache_dir"] or "default"
    )
    names, alphabet = _names(lexicon.nouns)
    verbs, verbs_described = verb_lexicon()
    common, common_described = common_verbs()
    return EMPEvent(
        embeddings=emb,
        epsilon=p["epsilon"],
        nouns=lexicon.nouns,
        nouns_description=lexicon.describe(),
        verbs=verbs - all_function_words(function_words),
        verbs_description=verbs_described + " (function words never)",
        common=common,
        common_description=common_described,
        names=names,
        name_alphabet=alphabet,
        name_weight=p["name_weight"],
        frame_weight=p["frame_weight"],
    )


def random_sub(p: dict[str, Any]) -> Mechanism:
    """random-sub (:class:`~authormask.mechanisms.baselines.RandomSubstitution`).

    Parameters
    ----------
    p
        The mechanism's checked parameters, by name.

    Returns
    -------
    Mechanism
        The mechanism.
    """
    from authormask.mechanisms.baselines import RandomSubstitution

    preparer, described = _canonical(p)
    return RandomSubstitution(
        embeddings=preparer.embeddings,
        rate=p["rate"],
        preparer=preparer,
        function_words_description=described,
    )


def emp_bag(p: dict[str, Any]) -> Mechanism:
    """emp-bag (:class:`~authormask.mechanisms.earth_movers.EMPBag`) from its parameters.

    Parameters
    ----------
    p
        The mechanism's checked parameters, by name.

    Returns
    -------
    Mechanism
        The mechanism.
    """
    from authormask.mechanisms.earth_movers import EMPBag

    preparer, described = _preparer(p)
    return EMPBag(
        embeddings=preparer.embeddings,
        epsilon=p["epsilon"],
        preparer=preparer,
        stopwords_description=described,
        length=p["length"],
        fixed_length=p["fixed_length"],
        decoder=p["decoder"],
    )


def emp_text(p: dict[str, Any]) -> Mechanism:
    """emp-text (:class:`~authormask.mechanisms.earth_movers.EMPText`).

    Parameters
    ----------
    p
        The mechanism's checked parameters, by name.

    Returns
    -------
    Mechanism
        The mechanism.
    """
    from authormask.mechanisms.earth_movers import EMPText

    preparer, described = _preparer(p)
    return EMPText(
        embeddings=preparer.embeddings,
        epsilon=p["epsilon"],
        preparer=preparer,
        stopwords_description=described,
        decoder=p["decoder"],
    )


def peer_text(name: str) -> Callable[[dict[str, Any]], Mechanism]:
    """A peer word-level mechanism of :mod:`authormask.mechanisms.peers`, in place like
    emp-text; its own parameter (``regularization``, ``gamma``) is passed when it has one.

    Parameters
    ----------
    name
        The peer's registered name: ``mahalanobis``, ``tem`` or ``santext``.

    Returns
    -------
    Callable[[dict[str, Any]], Mechanism]
        The factory: the mechanism from its checked parameters.
    """

    def factory(p: dict[str, Any]) -> Mechanism:
        from authormask.mechanisms import peers

        cls = {"mahalanobis": peers.MahalanobisText, "tem": peers.TEMText, "santext": peers.SanText}
        preparer, described = _preparer(p)
        own = {k: p[k] for k in ("regularization", "gamma") if k in p}
        mech: Mechanism = cls[name](
            embeddings=preparer.embeddings,
            epsilon=p["epsilon"],
            preparer=preparer,
            stopwords_description=described,
            **own,
        )
        return mech

    return factory


def load_trained_model(path: Any) -> tuple[Any, str]:
    """A trained model (a directory of ``authormask train erae``, or a loaded model) and its
    kind, as :attr:`~authormask.core.specs.MechanismSpec.model_kind` names it: "reward"
    (trained with the embedding reward, for erae) or "plain" (without it, for ae-dp).

    Parameters
    ----------
    path
        A model directory, or a loaded model.

    Returns
    -------
    tuple[Any, str]
        The model and its kind, ``"reward"`` or ``"plain"``.
    """
    model = _load_model(path)
    return model, "reward" if model.config.uses_reward else "plain"


def _load_model(model: Any, *, reward: bool | None = None, name: str = "") -> Any:
    from authormask.models.erae import ERAEModel, load_model

    if isinstance(model, (str, Path)):
        try:
            model = load_model(model)
        except InputError as exc:
            raise _naming(exc, "model") from None
    if not isinstance(model, ERAEModel):
        raise InvalidParameterError(
            f"`model` must be a model directory or a loaded model, got {model!r}"
        )
    if reward is not None and bool(model.config.uses_reward) != reward:
        other = "ae-dp" if reward else "erae"
        raise InvalidParameterError(
            f"the model was trained {'without' if reward else 'with'} the embedding reward: "
            f"it is an {other} model, not {name}"
        )
    return model


def token_model(reward: bool, name: str) -> Callable[[dict[str, Any]], Mechanism]:
    """The factory of erae or ae-dp: a trained token model behind ER-AE's decoder.

    Parameters
    ----------
    reward
        Whether the model must have been trained with the embedding reward (erae) or without it
        (ae-dp).
    name
        The mechanism's registered name, for the error message.

    Returns
    -------
    Callable[[dict[str, Any]], Mechanism]
        The factory: the mechanism from its checked parameters.
    """

    def factory(p: dict[str, Any]) -> Mechanism:
        from authormask.mechanisms.generation import ERAEMechanism

        model = _load_model(p["model"], reward=reward, name=name)
        return ERAEMechanism(model, epsilon=p["epsilon"], batch_size=p["batch_size"])

    return factory


def syntf(p: dict[str, Any]) -> Mechanism:
    """syntf (:class:`~authormask.mechanisms.generation.SynTFMechanism`).

    Parameters
    ----------
    p
        The mechanism's checked parameters, by name.

    Returns
    -------
    Mechanism
        The mechanism.
    """
    from authormask.mechanisms.generation import SynTFMechanism

    emb = _embeddings(p["embeddings"], p["vocab_size"], p["cache_dir"])
    return SynTFMechanism(
        emb, epsilon=p["epsilon"], output_size=p["output_size"], max_length=p["max_length"]
    )


def random_r(p: dict[str, Any]) -> Mechanism:
    """random-r (:class:`~authormask.mechanisms.generation.RandomReplacement`): the trained
    model's vocabulary, or the embeddings' first ``output_size`` words.

    Parameters
    ----------
    p
        The mechanism's checked parameters, by name.

    Returns
    -------
    Mechanism
        The mechanism.
    """
    from authormask.mechanisms.generation import RandomReplacement

    if p["model"] is not None:
        model = _load_model(p["model"])
        length = model.config.max_length if p["max_length"] is None else p["max_length"]
        return RandomReplacement(model.vocab.words, max_length=length)
    emb = _embeddings(p["embeddings"], p["vocab_size"], p["cache_dir"])
    length = 50 if p["max_length"] is None else p["max_length"]
    return RandomReplacement(emb.words[: p["output_size"]], max_length=length)


def with_entities(mechanism: Mechanism, p: dict[str, Any]) -> Mechanism:
    """``mechanism`` given texts with their entities replaced as parameter ``entities`` says
    (:class:`~authormask.mechanisms.inputs.EntityInputs`; its recogniser is the packaged
    spaCy pipeline's, loaded once per process at its first use).

    Parameters
    ----------
    mechanism
        The mechanism the texts go to.
    p
        The checked parameters; ``p["entities"]`` is the entity policy.

    Returns
    -------
    Mechanism
        ``mechanism`` behind the entity step.
    """
    from authormask.mechanisms.inputs import EntityInputs

    return EntityInputs(mechanism, entities=p["entities"])
