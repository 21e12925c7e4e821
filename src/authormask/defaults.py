"""Public defaults of mechanism parameters, shared by the mechanisms and the registry.

This module imports nothing, so the registry (and the command line's options, which it
generates) can read them without loading numpy.
"""

__all__ = [
    "CONTENT",
    "DEFAULT_LENGTH",
    "DEFAULT_REGULARIZATION",
    "EVENT_EPSILON",
    "FRAME_WEIGHT",
    "MAX_WEIGHT",
    "NAME_WEIGHT",
    "PRIOR_WEIGHT",
    "RECOMMENDED_EPSILON",
    "SENTENCE_EPSILON",
    "SENTENCE_WEIGHT",
]

#: N of ``emp-bag`` when the user does not state one: a fixed public constant that never looks
#: at the data (so no output reveals another document's length).
DEFAULT_LENGTH = 40

#: ``lambda`` of ``mahalanobis`` when none is given: a choice of this project (the paper leaves
#: lambda in [0, 1] to the user), the default of the public MLDP benchmark implementation
DEFAULT_REGULARIZATION = 0.2

#: epsilon of ``emp-write`` when none is given: the recommended start for readable text
#: (docs/how-to/choose.md), the one default of the command line, the page and the quick start;
#: every other mechanism needs its epsilon stated
RECOMMENDED_EPSILON = 7.0
#: epsilon of ``emp-sentence`` when none is given: chosen on pan19-en's tuning problems 2 and 4
#: as the user releases (default entities, sixteen attackers, eight points): the largest epsilon
#: whose strongest attacker is within 0.10 of a uniform guess (0.143 against 0.163), with the
#: entity-stepped similarity 0.762, retrieval 0.98 and 94.6% of sentences with a finite verb
#: (docs/emp-sentence.md); on all four problems its attacker scores as emp-write's at 7 (0.192)
SENTENCE_EPSILON = 6.0

#: weight of the public language model against the noise in ``emp-write``'s context decoder
#: (post-processing: the guarantee is the same at any weight). 1: two full pan19-en runs at the
#: same code, 1 and 0.25 (docs/emp-write.md), put weight 1 ahead on the tuning problems 2 and 4
#: at the same content recall (0.173 against 0.201 at recall 0.455) and 0.25 ahead on the
#: held-out ones: no gain that carries over, so the simpler weight stays
PRIOR_WEIGHT = 1.0
#: the largest weight a mechanism accepts (``prior_weight``, ``sentence_weight``,
#: ``name_weight``): every number a mechanism takes has a finite range. A prior weight of 1e308
#: once tied up a release for over ten minutes; 100 already makes the language model decide
#: every word, and a sentence or name weight of 100 is 700 per sentence unit at epsilon 7
MAX_WEIGHT = 100.0
#: emp-sentence: the weight of a sentence's distance against a noun's (each sentence gets
#: ``SENTENCE_WEIGHT * epsilon`` per unit of distance between 16-d sentence points, at most 2
#: apart). Chosen on pan19-en's tuning problems 2 and 4 at epsilon 7 (default entities, sixteen
#: attackers): weight 5 left the template a neighbour of the writer's sentence and the typed
#: 3-gram SVM named the writer at 0.211; weight 1 at 0.175, with the entity-stepped similarity
#: 0.804 (0.834) and retrieval 0.98 (1.00) nearly kept (docs/emp-sentence.md)
SENTENCE_WEIGHT = 1.0
#: emp-sentence: the weight of a name changed against a unit of noun distance (each name of the
#: public name lists goes through k-ary randomized response at ``NAME_WEIGHT * epsilon``, the
#: discrete metric: any name for any other costs that much; a noun changed costs epsilon times a
#: distance of 3-7 in GloVe 50-d)
NAME_WEIGHT = 1.25
#: emp-event: the weight of a frame changed (direct object, a preposition, none) against a unit
#: of word distance (k-ary randomized response on the 36 public frames at ``FRAME_WEIGHT *
#: epsilon``): at 1 and epsilon 6 a frame is kept with probability 0.92 (at 0.5, 0.37: the
#: written events then read "liked in the woman")
FRAME_WEIGHT = 1.0
#: epsilon of ``emp-event`` when none is given (per unit of word distance at every agent, theme
#: and verb): the point measured on pan19-en's tuning problems 2 and 4 (docs/emp-event.md)
EVENT_EPSILON = 6.0

#: which words ``emp-write`` releases: "nouns" (the words of a public noun lexicon; the writer
#: writes the rest) or "words" (every content word). Nouns: on pan19-en, noise-free, a text's
#: nouns and names (42% of its content words) name its writer at 0.194 against 0.336 for a random
#: 40% (benchmarks/which_words.py), and the noun release reads better to the fluency judge
#: (docs/emp-write.md)
CONTENT = "nouns"
