"""What every `translate` command shares: typed options, choices from the config's Literals, and
the error handler that turns library errors into one line and exit code 1."""

from __future__ import annotations

import functools
import inspect
import logging
import sys
from collections.abc import Callable
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, TypeAlias, TypeVar, get_args

import typer

from translate.config.loading import load_config, parse_set
from translate.config.paths import DEFAULT_MODEL
from translate.config.schema import Device, Direction, Engine, RunConfig, Split
from translate.errors import TranslateError

F = TypeVar("F", bound=Callable[..., Any])

ConfigOpt = Annotated[Path | None, typer.Option("--config", "-c", help="YAML or TOML run configuration.")]
SetOpt = Annotated[list[str] | None, typer.Option(
    "--set", help="Override any config key, e.g. --set model.attention.kind=multihead (repeatable).")]
DataDirOpt = Annotated[str | None, typer.Option(help="Folder with train/dev/test files (config key data.data_dir).")]


def _choices(name: str, literal: Any) -> Any:
    """A str Enum of a config Literal's values: typer shows them in --help and rejects others (exit 2)."""
    return Enum(name, [(value, value) for value in get_args(literal)], type=str)


if TYPE_CHECKING:  # built at run time; to the type checker, the str each member is
    DirectionChoice: TypeAlias = str
    DeviceChoice: TypeAlias = str
    SplitChoice: TypeAlias = str
    EngineChoice: TypeAlias = str
else:
    DirectionChoice, DeviceChoice, SplitChoice = (_choices("DirectionChoice", Direction),
                                                  _choices("DeviceChoice", Device), _choices("SplitChoice", Split))
    EngineChoice = _choices("EngineChoice", Engine)
DirectionOpt = Annotated[DirectionChoice | None, typer.Option(help="Translation direction (config key data.direction).")]
DeviceOpt = Annotated[DeviceChoice | None, typer.Option(
    help="Where to run: auto = CUDA when available (config key device).")]
NameOpt = Annotated[str | None, typer.Option(help="Run name: outputs go to <runs-dir>/<name>/.")]
CheckpointOpt = Annotated[str, typer.Option("--checkpoint", "-m", help=(
    "A run folder (uses its best/), a checkpoint folder, or the name of a released model "
    "(see `translate info`)."))]
CheckpointsOpt = Annotated[list[str] | None, typer.Option("--checkpoint", "-m", help=(
    "A run folder (uses its best/), a checkpoint folder, or the name of a released model (see `translate "
    "info`); default: the released en-zh model. Give it several times to decode an ensemble (same "
    "direction and vocabularies; mean log-probabilities)."))]
BeamOpt = Annotated[int | None, typer.Option("--beam", "-b", help="Beam size; 1 = greedy (config key decode.beam_size).")]
EnsembleOpt = Annotated[bool, typer.Option("--ensemble", help=(
    "Decode each model together with the ensemble members shipped in its folder (members/): the released "
    "zh-en model ships two, about 2 BLEU better at about a third of the speed (docs/results/released-models.md). "
    "A model without members is decoded alone, with a warning."))]
DEFAULT_CHECKPOINT = DEFAULT_MODEL


def help_text(doc: str) -> str:
    """A command's docstring as --help shows it: the lines of a prose paragraph joined (the terminal
    wraps them; the source's own breaks at ~100 columns made ragged lines in an 80-column help), while
    a paragraph that starts with "Example" keeps its lines, for commands to copy."""
    paragraphs = [p.strip("\n") for p in inspect.cleandoc(doc).split("\n\n")]
    return "\n\n".join(p if p.startswith("Example") else " ".join(line.strip() for line in p.splitlines())
                       for p in paragraphs)


def handle_errors(func: F) -> F:
    """Turn library errors into one line on stderr and exit code 1 (no traceback for user mistakes)."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return func(*args, **kwargs)
        except TranslateError as exc:
            typer.echo(f"error: {exc}", err=True)
            raise typer.Exit(1) from None
        except KeyboardInterrupt:
            typer.echo("interrupted", err=True)
            raise typer.Exit(130) from None

    return wrapper  # type: ignore[return-value]


def plain(value: Any) -> Any:
    return value.value if isinstance(value, Enum) else value


def resolve_config(config: Path | None, sets: list[str] | None, **named: Any) -> RunConfig:
    """defaults < file < --set < named options (only those given)."""
    keys = {"data_dir": "data.data_dir", "direction": "data.direction", "name": "name", "device": "device",
            "max_minutes": "train.max_minutes", "max_steps": "train.max_steps", "max_tokens": "train.max_tokens",
            "beam": "decode.beam_size",
            "init_from": "train.init_from"}
    overrides = parse_set(sets or [])
    overrides.update({keys[k]: plain(v) for k, v in named.items() if v is not None})
    return load_config(config, overrides)


def quiet_datasets() -> None:
    """`datasets` info lines are dropped (the command's own report says what happened); its progress bars
    (count, rate, ETA of reading, cleaning and tokenising) show only on a terminal, where a corpus
    of millions of pairs takes minutes."""
    import datasets

    if not sys.stderr.isatty():
        datasets.disable_progress_bars()
    logging.getLogger("datasets").setLevel(logging.WARNING)
