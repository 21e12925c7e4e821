"""What the built-in mechanisms' factories load and wire in: word vectors, stopwords, text
preparers, trained models, emp-write's noun lexicon and the public name lists. A mechanism's
class never loads them: its factory (beside its spec) passes them in. Every loader is imported
when a mechanism is built, so a module that declares a spec stays light (no numpy)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from authormask.exceptions import (
    AuthormaskError,
    EmbeddingsError,
    InputError,
    InvalidParameterError,
)


def naming(exc: AuthormaskError, parameter: str) -> AuthormaskError:
    """``exc``, an error in what parameter ``parameter`` names (a vector file, a model
    directory), with the parameter named first between backquotes, as every front end shows
    its own (the command line: ``--embeddings``); the same class, so its exit status is too."""
    return type(exc)(f"`{parameter}`: {exc}")


def embeddings(value: Any, vocab_size: int | None, cache_dir: Any) -> Any:
    """The word vectors ``value`` names (``vocab_size`` and ``cache_dir`` checked at the
    boundary, :func:`~authormask.core.registry.check_parameters`)."""
    from authormask.embeddings import Embeddings, load_embeddings

    if isinstance(value, Embeddings):
        return value.restrict(vocab_size)
    if not isinstance(value, (str, Path)):
        raise InvalidParameterError(
            f"`embeddings` must be a name, a path or an Embeddings object, got {value!r}"
        )
    from authormask.embeddings.cache import CACHE_ENV, check_cache_dir, default_cache_dir

    folder = cache_dir if cache_dir else "default"
    try:  # a folder refused is the cache folder's error, not the vectors' (a newcomer's report)
        check_cache_dir(default_cache_dir() if folder == "default" else Path(folder))
    except (EmbeddingsError, InputError) as exc:
        if folder != "default":
            raise naming(exc, "cache_dir") from None
        if os.environ.get(CACHE_ENV, "").strip():  # the folder the environment chose
            raise type(exc)(f"${CACHE_ENV}: {exc}") from None
        raise
    try:
        return load_embeddings(str(value), vocab_size=vocab_size, cache_dir=folder)
    except (EmbeddingsError, InputError) as exc:
        raise naming(exc, "embeddings") from None


def stopwords(value: Any) -> tuple[frozenset[str], str]:
    """The stopwords (or function words) ``value`` names, and their description."""
    from authormask.text import load_stopwords

    if isinstance(value, (str, Path)):
        try:
            return load_stopwords(str(value))
        except InputError as exc:
            raise naming(exc, "stopwords") from None
    if isinstance(value, (set, frozenset, list, tuple)):
        from authormask.text.stopwords import describe_stopwords

        words = frozenset(str(w).lower() for w in value)
        return words, describe_stopwords(words, "a custom list")
    raise InvalidParameterError(
        f"`stopwords` must be a name, a file or a set of words, got {value!r}"
    )


def vectors_and_words(p: dict[str, Any]) -> tuple[Any, frozenset[str], str]:
    """The word vectors of parameters ``embeddings``, ``vocab_size`` and ``cache_dir``, then
    the words of parameter ``stopwords`` and their description (loaded in that order, so the
    first error is the vectors')."""
    emb = embeddings(p["embeddings"], p["vocab_size"], p["cache_dir"])
    words, described = stopwords(p["stopwords"])
    return emb, words, described


def preparer(p: dict[str, Any]) -> tuple[Any, str]:
    """The text preparer of emp-bag, emp-text and its peers, and its stopwords' description."""
    from authormask.text import TextPreparer

    emb, words, described = vectors_and_words(p)
    return TextPreparer(emb, stopwords=words, oov=p["oov"], oov_map_to=p["oov_map_to"]), described


def canonical(p: dict[str, Any]) -> tuple[Any, str]:
    """The canonical preparer of emp-doc and random-sub, and its function words'
    description."""
    from authormask.text.canonical import CanonicalPreparer

    emb, words, described = vectors_and_words(p)
    if not any(w in emb for w in words):
        raise InvalidParameterError(
            "the function-word list has no word with a vector in these embeddings (stopwords "
            "'none' leaves no class to perturb function words in)"
        )
    prepared = CanonicalPreparer(
        emb, function_words=words, oov_map_to=p["oov_map_to"], marks=p["marks"]
    )
    return prepared, described


def noun_lexicon(emb: Any, function_words: frozenset[str], cache_dir: Any) -> Any:
    """emp-write's public noun lexicon over the vectors ``emb``, never one of
    ``function_words`` (nor of the function words every list has)."""
    from authormask.mechanisms.written import all_function_words
    from authormask.models.lexicon import load_noun_lexicon

    return load_noun_lexicon(
        emb, all_function_words(function_words), cache_dir=cache_dir or "default"
    )


def public_names(lexicon: frozenset[str]) -> tuple[frozenset[str], list[str]]:
    """The public lists' names (lower case: the words a writing step capitalises) and the name
    alphabet: the lists' one-word names that the noun lexicon releases (a name of several words
    is released word by word, and its words are names only where they are one)."""
    from authormask.text.entities import public_lists

    lists = public_lists()
    names = frozenset(
        w.lower() for entries in (lists.given_names, lists.surnames, lists.places) for w in entries
    )
    return names, sorted(w for w in names if " " not in w and w in lexicon)


def trained_model(model: Any, *, reward: bool | None = None, name: str = "") -> Any:
    """The trained model ``model`` names (or is); with ``reward``, refused unless it was
    trained with (``True``) or without (``False``) the embedding reward, as mechanism ``name``
    needs."""
    from authormask.models.erae import ERAEModel, load_model

    if isinstance(model, (str, Path)):
        try:
            model = load_model(model)
        except InputError as exc:
            raise naming(exc, "model") from None
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
