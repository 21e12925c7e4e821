"""The reports of the PAN protocol (:mod:`authormask.evaluation.protocols.pan`): PAN's macro-F1
per mechanism and epsilon (mean over problems) and per problem in table.md, with the utilities
of the released texts beside it (MiniLM similarity, content recall, retrieval, fluency, each
with its floor: what unrelated originals score), one row per cell in table.csv, macro-F1 and
the utilities against epsilon in plot.png, the privacy-utility frontier against each utility
in frontier.png, the recommended epsilon for a target accuracy on request, report.html (all of
it on one page) and samples.md, the start of a few released texts beside their original."""

from __future__ import annotations

from dataclasses import asdict, fields
from pathlib import Path
from typing import Any

import numpy as np

from authormask.evaluation.measures import measure
from authormask.evaluation.protocols.pan import PanCell, PanResult
from authormask.evaluation.protocols.pan.config import (
    PAN_ENTITIES,
    PAN_LABELS,
    RATIO_UTILITIES,
    STEPPED,
    limit_mechanisms,
)
from authormask.evaluation.releases import NOISE_OFF_EPSILON, sweeps_rate
from authormask.evaluation.reports.files import FRONTIER_FILE, run_files, write_run_reports
from authormask.evaluation.reports.headline import headline_lines
from authormask.evaluation.reports.plots import (
    CURVE_PALETTE,
    curve_colours,
    curve_style,
    epsilon_axis,
    frontier_curve,
    headline_mark,
    hline,
    legend,
    panel_grid,
    png_bytes,
    vline,
)
from authormask.evaluation.reports.tables import (
    csv_text,
    epsilon_text,
    interval_text,
    markdown_cell,
    markdown_table,
    point_text,
    pooled_text,
    row_order,
    statement_lines,
    sweep_label,
)
from authormask.evaluation.tradeoff import (
    FrontierPoint,
    Recommendation,
    pan_frontier,
    pan_frontier_utilities,
    pan_headlines,
    recommend_pan,
)
from authormask.exceptions import InvalidParameterError

__all__ = [
    "SAMPLES_FILE",
    "pan_csv",
    "pan_frontier_png",
    "pan_markdown",
    "pan_plot",
    "pan_results",
    "pan_samples",
    "write_pan_reports",
]

#: the sample sheet, beside table.md
SAMPLES_FILE = "samples.md"
#: each utility's colour in plot.png (another utility, a plugin's: :func:`_utility_colours`)
_COLOURS = {
    "similarity": "grey",
    "content-recall": "tab:green",
    "retrieval": "tab:purple",
    "fluency": "tab:brown",
    "similarity-stepped": "silver",
    "content-recall-stepped": "yellowgreen",
    "retrieval-stepped": "orchid",
    "fluency-xfit": "tab:orange",
    "sentences": "tab:cyan",
    "topic-holds": "tab:olive",
}


def _utility_colours(utilities: tuple[str, ...] | list[str]) -> dict[str, str]:
    """Each of ``utilities``' colour in plot.png: its own (:data:`_COLOURS`), or, for one
    without, the next of :func:`~authormask.evaluation.reports.plots.curve_colours` that no
    other utility has (not black for all of them, which is the strongest attacker's)."""
    from itertools import cycle

    from matplotlib.colors import to_hex

    taken = {to_hex(c) for c in _COLOURS.values()}
    spare = cycle(c for c in curve_colours(len(CURVE_PALETTE)) if c not in taken)
    return {u: _COLOURS.get(u) or next(spare) for u in utilities}


#: which way each utility is better, for the frontier's axis titles
_BETTER = {u: "←" for u in RATIO_UTILITIES}
#: what each utility's floor line is on the frontier (default: unrelated originals' score)
_FLOOR_NAMES = {
    "retrieval": "uniform guess",
    "retrieval-stepped": "uniform guess",
    **{u: "the original" for u in RATIO_UTILITIES},
}


def _best_text(best: dict[str, Any]) -> str:
    low, high = best["wilson95"]
    return (
        f"{best['macro_f1']:.3f} {best['attacker']} (accuracy {best['correct']}/{best['total']}"
        f" = {best['accuracy']:.0%}, {interval_text(low, high)})"
    )


def _accuracy_text(best: dict[str, Any]) -> str:
    low, high = best["wilson95"]
    return (
        f"{best['attacker']}: {best['correct']}/{best['total']} = {best['accuracy']:.0%} "
        f"({interval_text(low, high)})"
    )


def _has_frontier(result: PanResult) -> bool:
    return bool(pan_frontier_utilities(result))


def _label(utility: str) -> str:
    """A utility's column title and legend (its registry label, or the PAN protocol's own:
    :data:`~authormask.evaluation.protocols.pan.config.PAN_LABELS`)."""
    return PAN_LABELS.get(utility) or measure(utility).label


def _floor_text(result: PanResult, utility: str, problem: str | None = None) -> str:
    """What ``utility`` scores without any release: the floor of unrelated originals, a
    uniform guess (retrieval), the original itself and its shuffle (a fluency ratio), the
    originals' own value (sentences, topic holds)."""
    floor = result.floor(utility, problem)
    if utility in RATIO_UTILITIES:
        return "1 (the original)" + (
            "" if floor is None else f"; {floor['mean']:.2f} (shuffled original)"
        )
    if floor is None:
        return ""
    if utility.removesuffix(STEPPED) == "retrieval":
        return f"{floor['mean']:.3f} (uniform guess)"
    if utility == "sentences":
        return f"{floor['mean']:.3f} (the originals)"
    if utility == "topic-holds":
        return f"{floor['mean']:.3f} (the originals, {floor['texts']} scorable texts)"
    return f"{floor['mean']:.3f}"


def pan_markdown(result: PanResult, *, target_accuracy: float | None = None) -> str:
    """Mean macro-F1 over problems per mechanism and epsilon (one column per attacker, the
    strongest attacker by macro-F1, the most accurate attacker with its accuracy's Wilson
    interval, and each utility with its interval), closed by a row of what chance and
    unrelated originals score (the floors); then every problem's macro-F1, utilities and
    floors; the frontier and, with ``target_accuracy``, the recommended epsilon per
    mechanism (:func:`~authormask.evaluation.tradeoff.recommend_pan`).

    Parameters
    ----------
    result
        The PAN run's result.
    target_accuracy
        The target attacker accuracy of the recommendation, or ``None``.

    Returns
    -------
    str
        table.md.
    """
    cfg = result.config
    recommendations = None if target_accuracy is None else recommend_pan(result, target_accuracy)
    utilities = tuple(cfg.utilities)
    problems = [p["name"] for p in result.collection["problems"]]
    lines = [
        f"# authormask evaluate --protocol pan: {result.collection['name']}",
        "",
        f"{len(problems)} problem(s), each scored on its own; seed {cfg.seed}; "
        f"{cfg.repetitions} repetition(s); {result.seconds:.0f} s. {_entities_text(cfg)} "
        "Values are PAN's macro-F1 "
        "(mean over problems); 'none' is the mechanism with its noise switched off"
        f"{_limit_text(cfg)}; the last "
        "row, 'floor', is what a uniform guess and unrelated original texts score (for a "
        "fluency ratio its shuffled original, for sentences and topic holds the originals' "
        "own value).",
        "",
    ]
    columns = [*cfg.attackers, "strongest attacker", "highest accuracy"]
    columns += [_label(u) for u in utilities]
    floor_row = [
        "floor",
        *("" for _ in cfg.attackers),
        "",
        f"uniform guess: {result.chance_accuracy:.0%}",
        *(_floor_text(result, u) for u in utilities),
    ]
    for m in cfg.mechanisms:
        header = [sweep_label(m), *columns]
        epsilons = row_order(m, cfg.points(m))
        summary = []
        for e in epsilons:
            summary.append(
                [
                    epsilon_text(e),
                    *(f"{result.mean_f1(m, e, a):.3f}" for a in cfg.attackers),
                    _best_text(result.best(m, e)),
                    _accuracy_text(result.most_accurate(m, e)),
                    *(pooled_text(result.utility(m, e, u)) for u in utilities),
                ]
            )
        if utilities:
            summary.append(floor_row)
        per_problem = []
        for p in problems:
            for e in epsilons:
                per_problem.append(
                    [
                        p,
                        epsilon_text(e),
                        *(
                            f"{np.mean([c.macro_f1 for c in result.cells_of(m, e, a, p)]):.3f}"
                            for a in cfg.attackers
                        ),
                        *(
                            pooled_text(result.utility(m, e, u, p), interval=False)
                            for u in utilities
                        ),
                    ]
                )
            if utilities:
                per_problem.append(
                    [
                        p,
                        "floor",
                        *("" for _ in cfg.attackers),
                        *(_floor_text(result, u, p) for u in utilities),
                    ]
                )
        lines += [f"## {m}", ""]
        lines += markdown_table(header, summary)
        lines += ["", f"Per problem ({m}):", ""]
        lines += markdown_table(
            ["problem", sweep_label(m), *cfg.attackers, *(_label(u) for u in utilities)],
            per_problem,
        )
        lines.append("")
    lines.append(
        "The strongest attacker has the largest mean macro-F1; the highest accuracy is the most "
        "accurate attacker's over every unknown text of every problem (an answer of <UNK> is "
        "right for a text by none of the candidates), with its Wilson 95% interval; a uniform "
        f"guess among each problem's candidates scores {result.chance_accuracy:.0%}"
        + (
            f" accuracy and mean macro-F1 {result.chance['mean']:.3f} (95th percentile "
            f"{result.chance['p95']:.3f} over {result.chance['draws']} draws)."
            if result.chance
            else "."
        )
    )
    lines += _utility_lines(result)
    lines.append("")
    if result.statements:
        lines.append("Privacy of every released text (full statements in results.json):")
        lines.append("")
        lines += statement_lines(result.statements)
        lines.append("")
    if _has_frontier(result):
        lines += ["## Privacy-utility frontier", "", f"![frontier]({FRONTIER_FILE})", ""]
        lines.append(
            "The strongest attacker's mean macro-F1 and the most accurate attacker's accuracy "
            "(Wilson 95%) against each utility (95% interval), one row of panels per utility, "
            "one curve per mechanism, each point labelled with its epsilon; the dotted "
            "vertical line is the utility's floor; the data is under 'frontier' in "
            "results.json."
        )
        lines.append("")
    heads = pan_headlines(result)
    if heads:
        lines += [*headline_lines(heads), ""]
    if recommendations:
        lines += [*_recommendation_lines(recommendations), ""]
    return "\n".join(lines).rstrip("\n") + "\n"


def _limit_text(config: Any) -> str:
    """For the mechanisms without a noise-off form (:func:`~authormask.evaluation.protocols.
    pan.config.limit_mechanisms`), what their 'none' row is instead; "" without any."""
    limit = limit_mechanisms(config)
    if not limit:
        return ""
    return (
        f" ({', '.join(limit)}, with no sampler to switch off: "
        f"{'its' if len(limit) == 1 else 'their'} release at epsilon "
        + f"{NOISE_OFF_EPSILON:.0e})".replace("e+", "e")
    )


def _entities_text(config: Any) -> str:
    """What every release of the run did with entities, in one sentence."""
    if config.entities == PAN_ENTITIES:
        return (
            f"Entities: {config.entities} (names, places, numbers and links replaced by random "
            "surrogates before the mechanism runs: what a user releases)."
        )
    return f"Entities: {config.entities} (not the user's default, {PAN_ENTITIES}: " + (
        "names, places, numbers and links given to the mechanism as written)."
        if config.entities == "keep"
        else "names, places, numbers and links replaced by their type)."
    )


def _utility_lines(result: PanResult) -> list[str]:
    """What each measured utility is, one paragraph each."""
    cfg = result.config
    if not cfg.utilities:
        return []
    k = cfg.similarity_texts
    sample = "every unknown text" if k is None else f"{k} unknown texts per problem (fixed)"
    lines = [
        f"Utilities: each released unknown text against its original, over {sample}, with "
        "the 95% interval of the mean (mean +- 1.96 standard errors); at 'none' they show what "
        "the mechanism's preparation alone changes. 'floor' is the same measure without any "
        f"release; samples.md shows the start of a few texts as each row released them."
    ]
    text = {
        "similarity": "MiniLM similarity: the cosine of the all-MiniLM-L6-v2 vectors of the "
        "release and its original; its floor is the mean similarity of two different "
        "original texts of the same problem (every pair of the sampled texts).",
        "content-recall": "content recall: the share of the original's content words "
        "(lower-cased word tokens not in the English stopword list) that the release keeps, "
        "counted as a multiset; its floor is the recall of one original's content words by "
        "another original of the same problem (every ordered pair of the sampled texts, or "
        "5,000 of them drawn once).",
        "retrieval": "retrieval: the share of releases whose MiniLM-nearest original among "
        "every original unknown text of the problem is their own; a uniform guess scores "
        "1 / the problem's unknown texts.",
        "fluency": "fluency: the geometric mean over texts of exp(SLOR(original) - "
        "SLOR(release)), the ratio of unigram-normalised perplexities of the release and its "
        "original under the fluency judge, a word-level LSTM language model trained on packaged "
        "public text no mechanism reads (its identity is in results.json, provenance); 1 = as "
        "fluent as the original, higher = less fluent; its interval is taken on the log scale; "
        "its floor row gives the shuffled original (the original's words in random order).",
        "similarity-stepped": "MiniLM similarity (stepped): the same cosine against the "
        "entity-stepped original, the original with the surrogates this release drew (what "
        "the mechanism was given and keeps), where the plain column reads the original as "
        f"written (what the user keeps); entities {cfg.entities}.",
        "content-recall-stepped": "content recall (stepped): the same recall of the "
        "entity-stepped original's content words.",
        "retrieval-stepped": "retrieval (stepped): the same search, the sampled originals "
        "entity-stepped as this release stepped them (the others as read).",
        "fluency-xfit": "fluency (cross-fitted judge): the same ratio under a judge of the "
        "same network trained, for each problem, on the collection's other problems' texts "
        "(in-domain, never the problem it scores, never a mechanism's training text; "
        "identities in results.json, provenance); its floor row gives the shuffled original.",
        "sentences": "sentences: the share of the release's sentences (spaCy en_core_web_md's "
        "parse) with a finite verb (VerbForm=Fin, or tag VBD, VBP, VBZ or MD), the mean over "
        "texts; its floor row gives the originals' own share.",
        "topic-holds": "topic holds: fandom accuracy of the released *known* texts, each "
        "candidate's under a classifier (linear SVM on the names of the training texts) "
        "trained on the original known texts of the other candidates (fandom-info.json); only "
        "texts whose fandom another candidate writes in count (the count is the texts of the "
        "interval); its floor row gives the originals' accuracy under the same classifiers.",
    }
    return lines + [text[u] for u in cfg.utilities]


def _recommendation_lines(recommendations: list[Recommendation]) -> list[str]:
    first = recommendations[0]
    return [
        f"## Recommended epsilon: attacker accuracy at or below {first.target_accuracy:.0%}",
        "",
        "Per mechanism, the epsilon with the best MiniLM similarity among those whose most "
        "accurate attacker's Wilson 95% upper bound (over every unknown text of every problem, "
        "not its point estimate) is at or below the target; the noise-off row is never "
        "recommended.",
        "",
        *(f"- {r.describe()}" for r in recommendations),
    ]


def pan_results(result: PanResult, *, target_accuracy: float | None = None) -> dict[str, Any]:
    """results.json: :meth:`PanResult.to_dict` (with every utility and its floors), the
    frontier against each utility (``{utility: mechanism -> points}``; ``{}`` without
    attackers or utilities) and, with ``target_accuracy``, the recommendations (read on the
    similarity frontier).

    Parameters
    ----------
    result
        The PAN run's result.
    target_accuracy
        The target attacker accuracy of the recommendation, or ``None``.

    Returns
    -------
    dict[str, Any]
        results.json's object.
    """
    data = result.to_dict()
    data["frontier"] = {
        u: {m: [p.to_dict() for p in points] for m, points in pan_frontier(result, u).items()}
        for u in pan_frontier_utilities(result)
    }
    data["headline"] = [h.to_dict() for h in pan_headlines(result)]
    if target_accuracy is not None:
        data["recommendation"] = [r.to_dict() for r in recommend_pan(result, target_accuracy)]
    return data


def pan_csv(result: PanResult) -> str:
    """One row per cell: the attackers' cells, then the utility cells (``attacker`` = the
    measure, ``macro_f1`` = its mean (fluency's geometric mean), ``total`` = the texts it
    read), then the floors (``attacker`` = ``<measure>-floor``, no mechanism or epsilon,
    ``correct`` = the pairs it read).

    Parameters
    ----------
    result
        The PAN run's result.

    Returns
    -------
    str
        table.csv.
    """
    names = [f.name for f in fields(PanCell)]
    rows = []
    for c in result.cells:
        row = asdict(c)
        row["epsilon"] = epsilon_text(c.epsilon)
        rows.append([row[f] for f in names])
    for u in result.utilities:
        row = {f: "" for f in names}
        row.update(
            problem=u.problem,
            mechanism=u.mechanism,
            epsilon=epsilon_text(u.epsilon),
            repetition=u.repetition,
            attacker=u.measure,
            macro_f1=f"{u.mean:.6f}",
            total=u.texts,
            seconds=f"{u.seconds:.3f}",
        )
        rows.append([row[f] for f in names])
    for fl in result.floors:
        row = {f: "" for f in names}
        row.update(
            problem=fl.problem,
            attacker=f"{fl.measure}-floor",
            macro_f1=f"{fl.mean:.6f}",
            correct=fl.pairs,
            total=fl.texts,
            seconds=f"{fl.seconds:.3f}",
        )
        rows.append([row[f] for f in names])
    return csv_text(names, rows)


def pan_plot(result: PanResult) -> bytes:
    """Mean macro-F1 against epsilon, one panel per mechanism; dashed = noise off; black =
    the strongest attacker. Below, where utilities were measured, each utility against
    epsilon (dashed: noise off; dotted: its floor), fluency's perplexity ratio on the right
    axis (dotted: 1, the original).

    Parameters
    ----------
    result
        The PAN run's result.

    Returns
    -------
    bytes
        The PNG.
    """
    cfg = result.config
    utilities = tuple(cfg.utilities)
    fig, grid, colours = panel_grid(
        2 if utilities else 1, len(cfg.mechanisms), height=4.2, sharey="row"
    )
    for col, m in enumerate(cfg.mechanisms):
        ax = grid[0][col]
        numeric = sorted(e for e in cfg.points(m) if e is not None)
        for i, a in enumerate(cfg.attackers):
            colour = colours[i % len(colours)]
            if numeric:
                ax.plot(
                    numeric, [result.mean_f1(m, e, a) for e in numeric], marker="o",
                    color=colour, label=a,
                )  # fmt: skip
            if None in cfg.points(m):
                ax.axhline(result.mean_f1(m, None, a), color=colour, linestyle="--", lw=0.8)
        if numeric:
            ax.plot(
                numeric, [result.best(m, e)["macro_f1"] for e in numeric], color="black",
                linewidth=2.0, label="strongest",
            )  # fmt: skip
        ax.set_title(m)
        ax.set_ylim(0, 1.05)
        axes = [ax]
        if utilities:
            uax = grid[1][col]
            _utility_panel(result, m, numeric, uax)
            uax.set_ylim(0, 1.05)
            axes.append(uax)
        for a_ in axes:
            if sweeps_rate(m):
                a_.set_xlabel("rate (no differential privacy)")
            else:
                epsilon_axis(a_, numeric)
                a_.set_xlabel("epsilon")
            a_.grid(alpha=0.3)
    grid[0][0].set_ylabel("PAN macro-F1, mean over problems (dashed: noise off)")
    legend(grid[0][-1], outside=True)
    if utilities:
        grid[1][0].set_ylabel("utility vs the original (dashed: noise off; dotted: floor)")
    fig.tight_layout()
    return png_bytes(fig)


def _utility_panel(result: PanResult, mechanism: str, numeric: list[float], ax: Any) -> None:
    """One mechanism's utilities against epsilon (fluency on a right-hand axis)."""
    cfg = result.config
    handles: list[Any] = []
    fluency_ax = None
    colours = _utility_colours(list(cfg.utilities))
    for u in cfg.utilities:
        colour = colours[u]
        target = ax
        if u in RATIO_UTILITIES:
            if fluency_ax is None:
                fluency_ax = ax.twinx()
                fluency_ax.axhline(1.0, color="tab:brown", linestyle=":", lw=1.0)
                fluency_ax.set_ylabel(
                    "fluency: perplexity ratio (1 = the original)", color="tab:brown"
                )
            target = fluency_ax
        else:
            floor = result.floor(u)
            if floor is not None:
                target.axhline(floor["mean"], color=colour, linestyle=":", lw=1.0)
        values = {e: result.utility(mechanism, e, u) for e in cfg.points(mechanism)}
        if numeric:
            (line,) = target.plot(
                numeric, [(values[e] or {"mean": np.nan})["mean"] for e in numeric],
                color=colour, linestyle="-.", marker="s", label=_label(u),
            )  # fmt: skip
            handles.append(line)
        off = values.get(None)
        if off is not None:
            target.axhline(off["mean"], color=colour, linestyle="--", lw=0.8)
    if fluency_ax is not None:
        fluency_ax.set_ylim(bottom=0)
    if handles:
        ax.legend(handles=handles, fontsize=8, loc="best")


def _curve(ax: Any, points: list[FrontierPoint], y: list[float], colour: str, mechanism: str,
           yerr: list[tuple[float, float]] | None) -> None:  # fmt: skip
    colour, style, label = curve_style(mechanism, colour)
    frontier_curve(
        ax,
        [p.utility for p in points],
        y,
        labels=[point_text(mechanism, p.epsilon) for p in points],
        linestyle=style,
        colour=colour,
        label=label,
        xerr=[
            (
                p.utility if p.utility_low is None else p.utility_low,
                p.utility if p.utility_high is None else p.utility_high,
            )
            for p in points
        ],
        yerr=yerr,
    )  # fmt: skip


def pan_frontier_png(result: PanResult, *, target_accuracy: float | None = None) -> bytes:
    """The privacy-utility frontier of a PAN run, one row of panels per utility it measured
    (:func:`~authormask.evaluation.tradeoff.pan_frontier_utilities`): against the utility
    (with its 95% interval), the strongest attacker's mean macro-F1 (left) and the most
    accurate attacker's accuracy with its Wilson 95% interval (right), one curve per
    mechanism, each point labelled with its epsilon; dotted grey vertical = the utility's floor
    (unrelated originals; retrieval: a uniform guess; fluency: 1, the original), dotted grey
    horizontal = a uniform guess's accuracy, dashed red = ``target_accuracy`` if given; the
    similarity row carries each mechanism's headline.

    Parameters
    ----------
    result
        The PAN run's result.
    target_accuracy
        The target attacker accuracy to draw, or ``None``.

    Returns
    -------
    bytes
        The PNG.

    Raises
    ------
    InvalidParameterError
        If the run measured no utility or has no attacker.
    """
    utilities = pan_frontier_utilities(result)
    if not utilities:
        raise InvalidParameterError(
            "no frontier: the PAN run needs attackers and a utility measure (attackers: "
            f"{', '.join(result.config.attackers) or 'none'}; utilities: none)"
        )
    marks = {h.mechanism: h for h in pan_headlines(result)}
    fig, grid, colours = panel_grid(len(utilities), 2, height=4.6)
    for row, utility in enumerate(utilities):
        f1_ax, acc_ax = grid[row]
        for i, (mechanism, points) in enumerate(pan_frontier(result, utility).items()):
            if not points:
                continue
            colour = colours[i % len(colours)]
            f1 = [result.best(mechanism, p.epsilon)["macro_f1"] for p in points]
            _curve(f1_ax, points, f1, colour, mechanism, None)
            accuracy = [p.strongest_accuracy for p in points]
            _curve(acc_ax, points, accuracy, colour, mechanism, [(p.low, p.high) for p in points])
            if utility == "similarity" and mechanism in marks:
                headline_mark(acc_ax, marks[mechanism], curve_style(mechanism, colour)[0])
        hline(acc_ax, result.chance_accuracy, "uniform guess")
        if target_accuracy is not None:
            hline(
                acc_ax, target_accuracy, f"target {target_accuracy:.0%}", colour="tab:red",
                style="--", left=True,
            )  # fmt: skip
        floor = 1.0 if utility in RATIO_UTILITIES else (result.floor(utility) or {}).get("mean")
        for ax in (f1_ax, acc_ax):
            if floor is not None:
                vline(ax, float(floor), _FLOOR_NAMES.get(utility, "floor"))
            better = _BETTER.get(utility, "→")
            reference = "the stepped original" if utility.endswith(STEPPED) else "the original"
            ax.set_xlabel(f"{_label(utility)} vs {reference} (better {better})")
            ax.set_ylim(0, 1.05)
            ax.grid(alpha=0.3)
        f1_ax.set_ylabel("strongest attacker: PAN macro-F1 (mean over problems)")
        acc_ax.set_ylabel("most accurate attacker: accuracy (95% Wilson)")
        acc_ax.yaxis.set_tick_params(labelleft=True)
        f1_ax.set_title(f"privacy-utility frontier: macro-F1 / {_label(utility)}")
        acc_ax.set_title(f"privacy-utility frontier: accuracy / {_label(utility)}")
        legend(acc_ax)
    fig.tight_layout()
    return png_bytes(fig)


def _row_name(mechanism: str, epsilon: float | None) -> str:
    """A row of the sample sheet: the mechanism and its epsilon (or rate)."""
    if epsilon is None:
        return f"{mechanism}, noise off"
    if sweeps_rate(mechanism):
        return f"{mechanism}, {point_text(mechanism, epsilon)}"
    return f"{mechanism}, epsilon {epsilon_text(epsilon)}"


def pan_samples(result: PanResult) -> str:
    """samples.md: per sampled text of the sample sheet (:class:`~authormask.evaluation.
    protocols.pan.PanExcerpt`), its first words as read from the collection and as each
    mechanism released it (noise off, then each epsilon of repetition 0), with the whole
    release's content recall and fluency ratio against the original; ``""`` without
    samples. Written from the run's own releases, in a fixed order.

    Parameters
    ----------
    result
        The PAN run's result.

    Returns
    -------
    str
        samples.md.
    """
    if not result.samples:
        return ""
    first = result.samples[0]
    lines = [
        f"# Sample releases: {result.collection['name']}, {first.problem}",
        "",
        "The first words of the first sampled unknown texts of the first problem (the texts "
        "every utility reads), as read from the collection and as each mechanism released "
        "them: with its noise off ('none') and at each epsilon (repetition 0). Content recall "
        "and the fluency ratio (perplexity of the release / of the original; 1 = as fluent) "
        "are of the whole text against its original. Taken from the run's own releases.",
        "",
    ]
    texts = list(dict.fromkeys(s.text for s in result.samples))
    for n, name in enumerate(texts, start=1):
        rows = []
        for s in (s for s in result.samples if s.text == name):
            what = "original" if s.mechanism is None else _row_name(s.mechanism, s.epsilon)
            rows.append(
                [
                    what,
                    str(s.words),
                    f"{s.content_recall:.3f}",
                    "" if s.fluency is None else f"{s.fluency:.2f}",
                    markdown_cell(s.excerpt),
                ]
            )
        lines += [f"## {n}. {first.problem}/{name}", ""]
        lines += markdown_table(["text", "words", "content recall", "fluency", "first words"], rows)
        lines.append("")
    return "\n".join(lines).rstrip("\n") + "\n"


def write_pan_reports(
    result: PanResult,
    folder: str | Path,
    *,
    force: bool = False,
    target_accuracy: float | None = None,
) -> list[Path]:
    """results.json, table.md, table.csv, plot.png, frontier.png (with attackers and
    utilities), report.html and samples.md (:func:`pan_samples`, where the run kept samples)
    in ``folder``; with ``target_accuracy`` the recommendation goes into table.md and
    results.json. A frontier.png left by an earlier report is removed when this run has no
    frontier.

    Parameters
    ----------
    result
        The PAN run's result.
    folder
        The output folder (created if missing).
    force
        Whether existing reports may be replaced.
    target_accuracy
        The target attacker accuracy of the recommendation, or ``None``.

    Returns
    -------
    list[Path]
        The paths written.
    """
    figures = {"plot.png": pan_plot(result)}
    if _has_frontier(result):
        figures[FRONTIER_FILE] = pan_frontier_png(result, target_accuracy=target_accuracy)
    files = run_files(
        results=pan_results(result, target_accuracy=target_accuracy),
        markdown=pan_markdown(result, target_accuracy=target_accuracy),
        csv=pan_csv(result),
        figures=figures,
        config={"protocol": "pan", **asdict(result.config)},
        statements=result.statements,
    )
    if result.samples:
        files[SAMPLES_FILE] = pan_samples(result)
    return write_run_reports(folder, files, force=force)
