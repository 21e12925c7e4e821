"""``authormask explain FILE``: the plain words of a privacy statement that was published with a
release (a ``.privacy.json`` file, the output it sits beside, or a JSONL release's records), read
back without releasing anything again."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click

__all__ = ["register"]

SUFFIX = ".privacy.json"
#: the statement of a release into a folder
FOLDER_STATEMENT = "PRIVACY-STATEMENT.json"


def _statement_data(path: Path) -> Any:
    """The parsed statement of ``path``: the file itself, the ``.privacy.json`` beside it, or
    the ``privacy`` field of the first record of a JSON Lines release."""
    from authormask.exceptions import InputError

    if not path.name.endswith(SUFFIX) and not path.exists():
        raise InputError(f"file not found: {path}")
    if path.is_dir():  # a release into a folder: its statement is inside
        path = path / FOLDER_STATEMENT
    beside = path.with_name(path.name + SUFFIX)
    if not path.name.endswith(SUFFIX) and beside.is_file():
        path = beside
    if not path.is_file():
        raise InputError(f"file not found: {path}")
    try:
        with path.open(encoding="utf-8") as fh:
            head = fh.read(1 << 26)  # a statement is a few kB; a release's first record too
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"cannot read {path}: {exc}") from None
    try:
        data = json.loads(head)
    except (json.JSONDecodeError, RecursionError):
        first = head.split("\n", 1)[0]
        try:
            data = json.loads(first)
        except (json.JSONDecodeError, RecursionError):
            raise InputError(
                f"{path} is neither a privacy statement (.privacy.json) nor a release with one "
                f"beside it ({path.name}{SUFFIX})"
            ) from None
    if isinstance(data, dict) and "schema" not in data and isinstance(data.get("privacy"), dict):
        data = data["privacy"]  # a dataset record that carries its statement
    return data


def _embeddings(statement: Any) -> Any:
    """The packaged vectors the statement names, for the worked example, or None."""
    named = statement.embeddings
    if not named:
        return None
    try:
        from authormask.embeddings import KNOWN_EMBEDDINGS
        from authormask.embeddings.registry import load_embeddings

        if named.get("name") not in KNOWN_EMBEDDINGS:
            return None
        emb = load_embeddings(named["name"], vocab_size=named.get("vocab_size"))
        if emb.identity.to_dict().get("words_sha256") != named.get("words_sha256"):
            return None  # other vectors than the statement's: no example from them
        return emb
    except Exception:
        return None


@click.command(name="explain")
@click.argument("file", type=click.Path(path_type=Path))
@click.option("--full", is_flag=True, help="Print the whole statement first, then its plain words.")
def explain_cmd(file: Path, full: bool) -> None:
    """Print the plain words of a published privacy statement: FILE is a .privacy.json file,
    the release it sits beside, a release folder (its PRIVACY-STATEMENT.json), or a JSON Lines
    release whose records carry it. Nothing is released again (a second release of the same
    text would add its epsilon)."""
    from authormask.accounting.plain import explain
    from authormask.accounting.statement import PrivacyStatement

    statement = PrivacyStatement.from_dict(_statement_data(file))
    if full:
        click.echo(statement.describe())
        click.echo("")
    click.echo("In plain words:\n")
    click.echo(explain(statement, embeddings=_embeddings(statement)))


def register(group: click.Group) -> None:
    """Add ``explain`` to ``group``."""
    group.add_command(explain_cmd)
