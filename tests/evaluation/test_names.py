"""Name survival (issue 30, D): the share of an original's named-entity occurrences whose words
stand in its release; 0 under entities 'surrogate' by construction, all of them with the noise
off and the entities kept."""

from __future__ import annotations

import pytest

from authormask.core import release
from authormask.core.registry import create_noise_off
from authormask.evaluation.measures import measure, utility_names
from authormask.evaluation.measures.utilities.names import name_survival, survives
from authormask.evaluation.protocols import PAN_UTILITIES
from authormask.evaluation.protocols.fernandes2019.config import DEFAULT_UTILITIES
from authormask.exceptions import InvalidParameterError
from authormask.text.entities import load_recogniser

ORIGINALS = [
    "Hi Maria,\n\nI met John Smith in Paris at Google on Friday.\n\nBest,\nPeter",
    "Dear Olga Ivanova, the parcel left Oslo for Bergen on Monday. Olga, call Tomasz.",
]


@pytest.fixture(scope="module")
def recogniser():
    return load_recogniser()


def test_survives_reads_runs_of_words_in_any_case() -> None:
    assert survives("John Smith", "then JOHN smith, left")
    assert not survives("John Smith", "John met Smith")
    assert survives("St. Louis", "st louis")
    assert not survives("Paris", "Parisian")


def test_an_original_keeps_all_its_names_and_a_text_without_them_none(recogniser) -> None:
    same = name_survival(ORIGINALS, ORIGINALS, recogniser=recogniser)
    assert same.found >= 9 and same.survived == same.found and same.share == 1.0
    assert set(same.by_kind) == {"person", "place", "organisation"}
    assert same.by_kind["place"][0] >= 3  # Paris, Oslo, Bergen
    gone = name_survival(ORIGINALS, ["I met someone somewhere."] * 2, recogniser=recogniser)
    assert gone.found == same.found and gone.survived == 0 and gone.share == 0.0
    # of the second text's five (Olga Ivanova, Olga, Tomasz, Oslo, Bergen), "Olga" alone
    # survives; "Olga Ivanova" needs both its words
    half = name_survival(ORIGINALS[1:], ["Dear Olga, the parcel left."], recogniser=recogniser)
    assert (half.found, half.survived) == (5, 1)


def test_pattern_kinds_are_counted_when_asked(recogniser) -> None:
    text = ["Mail jo@example.org or call +44 20 7946 0958 about 12 boxes."]
    result = name_survival(text, text, kinds=("email", "phone", "number"), recogniser=recogniser)
    assert result.by_kind == {"email": (1, 1), "phone": (1, 1), "number": (1, 1)}
    with pytest.raises(InvalidParameterError, match="unknown entity kinds"):
        name_survival(text, text, kinds=("names",), recogniser=recogniser)
    with pytest.raises(InvalidParameterError, match="1 originals for 2 releases"):
        name_survival(text, text * 2, recogniser=recogniser)


def test_with_the_noise_off_surrogate_leaves_no_name_and_keep_every_name(
    glove_20k, recogniser
) -> None:
    def released(entities: str) -> list[str]:
        off = create_noise_off("emp-text", embeddings=glove_20k, oov="keep", entities=entities)
        return release(ORIGINALS, off, random_state=4).texts

    kept = name_survival(ORIGINALS, released("keep"), recogniser=recogniser)
    assert kept.share == 1.0
    surrogates = released("surrogate")
    replaced = name_survival(ORIGINALS, surrogates, recogniser=recogniser)
    assert replaced.found == kept.found
    # a name survives only where a surrogate, drawn from the public lists independently of
    # the text, is by chance another name of the same text ("Peter" drawn as "Maria")
    from authormask.text.entities import public_lists

    lists = public_lists()
    public = {w.lower() for w in (*lists.given_names, *lists.surnames, *lists.places)}
    for original, release_text in zip(ORIGINALS, surrogates, strict=True):
        for entity in recogniser.find(original):
            if entity.kind == "person" and entity.text in release_text:
                assert all(w.lower() in public for w in entity.text.split()), entity
    assert replaced.survived <= 1


def test_the_measure_is_registered_and_optional() -> None:
    m = measure("name-survival")
    assert m.kind == "utility" and m.task is None
    assert "name-survival" in utility_names()
    assert utility_names()[-4:] == ("content-recall", "retrieval", "fluency", "sentences")
    assert "name-survival" not in DEFAULT_UTILITIES and "name-survival" not in PAN_UTILITIES
