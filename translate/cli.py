"""The `translate` command line: prepare, train, text, file, evaluate, info, compare.

Every command resolves one RunConfig (defaults < --config file < --set overrides < named options),
calls one library function and prints a summary. User mistakes print one `error:` line, exit 1.
"""

from __future__ import annotations

import functools
import json
import logging
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, TypeVar

import typer

from translate import __version__
from translate.config import RunConfig, load_config, parse_set
from translate.errors import TranslateError

app = typer.Typer(help="English<->Chinese neural machine translation with pluggable RNN attention.",
                  no_args_is_help=True, add_completion=False, pretty_exceptions_enable=False)
logger = logging.getLogger("translate")

F = TypeVar("F", bound=Callable[..., Any])

ConfigOpt = Annotated[Path | None, typer.Option("--config", "-c", help="YAML or TOML run configuration.")]
SetOpt = Annotated[list[str] | None, typer.Option(
    "--set", help="Override any config key, e.g. --set model.attention.kind=multihead (repeatable).")]
DataDirOpt = Annotated[str | None, typer.Option(help="Folder with train/dev/test files (config key data.data_dir).")]
DirectionOpt = Annotated[str | None, typer.Option(help="en-zh or zh-en (config key data.direction).")]
NameOpt = Annotated[str | None, typer.Option(help="Run name: outputs go to <runs-dir>/<name>/.")]
CheckpointOpt = Annotated[Path, typer.Option("--checkpoint", "-m",
                                             help="A run folder (uses its best/) or a checkpoint folder.")]
BeamOpt = Annotated[int | None, typer.Option("--beam", "-b", help="Beam size; 1 = greedy (config key decode.beam_size).")]
DEFAULT_CHECKPOINT = Path("checkpoints/en-zh")


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


def resolve_config(config: Path | None, sets: list[str] | None, **named: Any) -> RunConfig:
    """defaults < file < --set < named options (only those given)."""
    keys = {"data_dir": "data.data_dir", "direction": "data.direction", "name": "name",
            "max_minutes": "train.max_minutes", "max_steps": "train.max_steps", "beam": "decode.beam_size"}
    overrides = parse_set(sets or [])
    overrides.update({keys[k]: v for k, v in named.items() if v is not None})
    return load_config(config, overrides)


def _print_version(value: bool) -> None:
    if value:
        typer.echo(f"translate {__version__}")
        raise typer.Exit()


@app.callback()
def main(verbose: Annotated[bool, typer.Option("--verbose", "-v", help="Debug logging.")] = False,
         quiet: Annotated[bool, typer.Option("--quiet", "-q", help="Only warnings and errors.")] = False,
         version: Annotated[bool, typer.Option("--version", help="Print the version and exit.", is_eager=True,
                                               callback=_print_version)] = False) -> None:
    """English<->Chinese NMT: train attentional RNNs, translate, evaluate, compare attention mechanisms."""
    level = logging.DEBUG if verbose else logging.WARNING if quiet else logging.INFO
    logging.basicConfig(level=level, format="%(message)s", stream=sys.stderr, force=True)
    logging.getLogger("datasets").setLevel(logging.WARNING)


@app.command()
@handle_errors
def prepare(config: ConfigOpt = None, set_: SetOpt = None, data_dir: DataDirOpt = None,
            direction: DirectionOpt = None) -> None:
    """Read and clean the corpus, train the SentencePiece models, cache the token ids; report counts."""
    from translate.data.corpus import prepare_data

    cfg = resolve_config(config, set_, data_dir=data_dir, direction=direction)
    data = prepare_data(cfg)
    for line in data.report:
        typer.echo(line)


@app.command()
@handle_errors
def train(config: ConfigOpt = None, set_: SetOpt = None, data_dir: DataDirOpt = None, direction: DirectionOpt = None,
          name: NameOpt = None,
          max_minutes: Annotated[float | None, typer.Option(help="Stop after this much training time.")] = None,
          max_steps: Annotated[int | None, typer.Option(help="Stop after this many updates.")] = None,
          resume: Annotated[Path | None, typer.Option(help="Continue the run in this folder exactly.")] = None) -> None:
    """Train an attentional RNN; keeps best/ and last/ checkpoints under runs/<name>/.

    Example: translate train --data-dir ../shared/data/tatoeba-cmn-eng --direction en-zh --max-minutes 20
    """
    from translate.train import train as run_training

    if resume is not None:
        if not (resume / "config.yaml").is_file():
            raise TranslateError(f"--resume {resume}: no config.yaml there; is it a run folder?")
        named = {"max_minutes": max_minutes, "max_steps": max_steps, "name": resume.name}
        cfg = resolve_config(resume / "config.yaml", set_, **named).replace({"runs_dir": str(resume.parent)})
    else:
        cfg = resolve_config(config, set_, data_dir=data_dir, direction=direction, name=name,
                             max_minutes=max_minutes, max_steps=max_steps)
    result = run_training(cfg, resume=resume is not None)
    typer.echo(f"{result.stop_reason}: {result.state.step} steps, best dev BLEU {result.best_bleu:.2f}; "
               f"checkpoints in {result.run_dir}/best and {result.run_dir}/last")


def _translator(checkpoint: Path) -> Any:
    from translate.translator import Translator

    return Translator.from_checkpoint(checkpoint)


def _decode_cfg(translator: Any, beam: int | None, n_best: int = 1, batch_size: int | None = None) -> Any:
    overrides: dict[str, Any] = {"decode.n_best": n_best}
    if beam is not None:
        overrides["decode.beam_size"] = beam
    if batch_size is not None:
        overrides["decode.batch_size"] = batch_size
    return translator.cfg.replace(overrides).decode


@app.command()
@handle_errors
def text(sentences: Annotated[list[str] | None, typer.Argument(help="Sentences; none = read lines from stdin.")] = None,
         checkpoint: CheckpointOpt = DEFAULT_CHECKPOINT, beam: BeamOpt = None,
         n_best: Annotated[int, typer.Option(help="Print this many translations per sentence, with scores.")] = 1) -> None:
    """Translate sentences given as arguments or on stdin, one per line."""
    inputs = sentences or [line.rstrip("\n") for line in sys.stdin]
    translator = _translator(checkpoint)
    results = translator.translate_n_best(inputs, _decode_cfg(translator, beam, n_best))
    for n_best_list in results:
        for hyp in n_best_list:
            typer.echo(hyp.text if n_best == 1 else f"{hyp.score:.4f}\t{hyp.text}")


@app.command()
@handle_errors
def file(input_path: Annotated[Path, typer.Argument(metavar="INPUT", help="Text file, one sentence per line.")],
         output: Annotated[Path | None, typer.Option("--output", "-o", help="Write here (default: stdout).")] = None,
         checkpoint: CheckpointOpt = DEFAULT_CHECKPOINT, beam: BeamOpt = None,
         batch_size: Annotated[int | None, typer.Option(help="Sentences per batch.")] = None) -> None:
    """Translate a file line by line, in batches; output keeps the line order."""
    from translate.data.readers import read_text_lines

    lines = read_text_lines(input_path)
    translator = _translator(checkpoint)
    hyps = translator.translate(lines, _decode_cfg(translator, beam, batch_size=batch_size))
    out_text = "".join(h + "\n" for h in hyps)
    if output is None:
        sys.stdout.write(out_text)
    else:
        output.write_text(out_text, encoding="utf-8")
        typer.echo(f"wrote {len(hyps)} translations to {output}", err=True)


@app.command()
@handle_errors
def evaluate(checkpoint: CheckpointOpt = DEFAULT_CHECKPOINT,
             split: Annotated[str, typer.Option(help="dev or test (report test only once you are done tuning).")] = "dev",
             data_dir: DataDirOpt = None, beam: BeamOpt = None, direction: DirectionOpt = None,
             output: Annotated[Path | None, typer.Option("--output", "-o", help="Hypotheses file.")] = None) -> None:
    """Translate dev or test and print BLEU and chrF with the sacrebleu signatures; writes hypotheses and report.json."""
    from translate.evaluation_run import evaluate_split

    if split not in ("dev", "test"):
        raise typer.BadParameter(f"'{split}': choose dev or test", param_hint="--split")
    report, hyp_path = evaluate_split(checkpoint, split, data_dir, beam, output, direction)
    typer.echo(report.summary())
    typer.echo(f"hypotheses: {hyp_path}")


@app.command()
@handle_errors
def info(checkpoint: CheckpointOpt = DEFAULT_CHECKPOINT) -> None:
    """Describe a checkpoint: direction, architecture, attention, parameters, training step and dev BLEU."""
    from translate.checkpoint import load_checkpoint

    loaded = load_checkpoint(checkpoint)
    cfg = loaded.config
    typer.echo(f"checkpoint: {loaded.path}")
    typer.echo(f"direction: {cfg.data.direction}")
    typer.echo(f"model: {cfg.model.rnn_type} hidden {cfg.model.hidden_size}, layers {cfg.model.encoder_layers}+"
               f"{cfg.model.decoder_layers}, attention {cfg.model.attention.kind}/{cfg.model.attention.scorer}, "
               f"self-attention {'on' if cfg.model.encoder_self_attention else 'off'}")
    typer.echo(f"parameters: {loaded.model.num_parameters():,}")
    typer.echo(f"vocabulary: {len(loaded.src_tokenizer)} src / {len(loaded.tgt_tokenizer)} tgt pieces")
    typer.echo(f"meta: {json.dumps(loaded.meta, ensure_ascii=False)}")


@app.command()
@handle_errors
def compare(mechanisms: Annotated[str, typer.Option(
                help="Comma-separated names, or 'all': none, additive, dot, scaled-dot, bilinear, additive-kv, "
                     "scaled-dot-kv, hard-reinforce, hard-gumbel-st, multihead, self-attention+additive.")] = "all",
            minutes: Annotated[float | None, typer.Option(help="Training budget per run, in minutes.")] = None,
            steps: Annotated[int | None, typer.Option(help="Training budget per run, in updates.")] = None,
            seeds: Annotated[str, typer.Option(help="Comma-separated seeds; several give mean ± std.")] = "1",
            out: Annotated[Path, typer.Option(help="Output folder (runs, tables, plots).")] = Path("runs/compare"),
            config: ConfigOpt = None, set_: SetOpt = None, data_dir: DataDirOpt = None,
            direction: DirectionOpt = None) -> None:
    """Train each attention mechanism with the same data, seed, size and budget; rank them by test BLEU.

    Writes results.md/.csv/.json (BLEU with 95 % bootstrap intervals and p-values against `none`),
    bleu.png, dev_bleu_curves.png and heatmaps.png. Rerun the same command to resume: finished
    runs are reused. Example: translate compare --minutes 10 --mechanisms none,additive,dot,scaled-dot
    """
    from translate.compare import compare as run_compare
    from translate.compare import parse_mechanisms

    if minutes is None and steps is None:
        raise typer.BadParameter("give a budget: --minutes or --steps", param_hint="--minutes/--steps")
    try:
        seed_list = [int(s) for s in seeds.split(",") if s.strip()]
    except ValueError:
        raise typer.BadParameter(f"'{seeds}': expected comma-separated integers", param_hint="--seeds") from None
    names = parse_mechanisms(mechanisms)
    cfg = resolve_config(config, set_, data_dir=data_dir, direction=direction, max_minutes=minutes, max_steps=steps)
    result_dir = run_compare(cfg, names, seed_list, out)
    typer.echo((result_dir / "results.md").read_text(encoding="utf-8"))
    typer.echo(f"tables and plots in {result_dir}")
