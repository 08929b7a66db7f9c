"""The `translate` command line. Every command resolves one RunConfig (defaults < --config file < --set
overrides < named options), calls one library function and prints a summary; user mistakes print one
`error:` line and exit 1, bad arguments exit 2 with the usage."""

from __future__ import annotations

import json
import logging
import os
import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from translate.cli.common import (
    DEFAULT_CHECKPOINT,
    BeamOpt,
    CheckpointOpt,
    CheckpointsOpt,
    ConfigOpt,
    DataDirOpt,
    DeviceOpt,
    DirectionOpt,
    EnsembleOpt,
    NameOpt,
    SetOpt,
    SplitChoice,
    handle_errors,
    help_text,
    plain,
    quiet_datasets,
    resolve_config,
)
from translate.cli.decide import decide
from translate.cli.serve import serve
from translate.cli.significance import significance
from translate.cli.study import compare, summary
from translate.cli.translation import EngineOpt, LexiconOpt, file, glossaries, models, text
from translate.config.loading import apply_overrides, parse_set
from translate.errors import TranslateError
from translate.version import __version__

app = typer.Typer(help="English<->Chinese neural machine translation with pluggable RNN attention.",
                  no_args_is_help=True, add_completion=False, pretty_exceptions_enable=False)
logger = logging.getLogger("translate")


def _relaunch_under_torchrun(nproc: int) -> None:
    """`translate train --nproc N ...` = `torchrun --standalone --nproc-per-node N -m translate train ...`."""
    args, skip = [], False
    for arg in sys.argv[1:]:
        if skip or arg == "--nproc" or arg.startswith("--nproc="):
            skip = arg == "--nproc" and not skip
            continue
        args.append(arg)
    command = [sys.executable, "-m", "torch.distributed.run", "--standalone", f"--nproc-per-node={nproc}",
               "-m", "translate", *args]
    typer.echo("running: " + " ".join(command[1:]), err=True)
    os.execv(sys.executable, command)


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


@app.command()
@handle_errors
def prepare(config: ConfigOpt = None, set_: SetOpt = None, data_dir: DataDirOpt = None,
            direction: DirectionOpt = None) -> None:
    """Read and clean the corpus, train the SentencePiece models, cache the token ids; report counts."""
    from translate.data.corpus import prepare_data

    quiet_datasets()
    cfg = resolve_config(config, set_, data_dir=data_dir, direction=direction)
    data = prepare_data(cfg.data, cfg.tokenizer)
    for line in data.report:
        typer.echo(line)


@app.command()
@handle_errors
def train(config: ConfigOpt = None, set_: SetOpt = None, data_dir: DataDirOpt = None, direction: DirectionOpt = None,
          name: NameOpt = None, device: DeviceOpt = None,
          max_minutes: Annotated[float | None, typer.Option(help="Stop after this much training time.")] = None,
          max_steps: Annotated[int | None, typer.Option(help="Stop after this many updates.")] = None,
          resume: Annotated[Path | None, typer.Option(help="Continue the run in this folder exactly.")] = None,
          init_from: Annotated[str | None, typer.Option(help=(
              "Fine-tune: start from this checkpoint or released model (its weights, tokenizers and model "
              "settings; config key train.init_from)."))] = None,
          nproc: Annotated[int, typer.Option(help=(
              "Data-parallel processes on this machine: relaunches itself under torchrun "
              "(torchrun --nproc-per-node N -m translate train ...); see README 'Training at scale'."))] = 1) -> None:
    """Train an attentional RNN; keeps best/ and last/ checkpoints under runs/<name>/.

    Without --data-dir it trains on the bundled Tatoeba split (see `translate info`).
    On --resume, settings that define the model, tokenizers or data position are refused;
    budgets, intervals and the learning rate may change (recorded in train.log).

    Examples (the second fine-tunes a released model on your corpus):
      translate train --direction en-zh --max-minutes 20 --name en-zh
      translate train --init-from en-zh --data-dir my-corpus/ --name mine
    """
    from translate.training.train import train as run_training

    if nproc > 1 and "WORLD_SIZE" not in os.environ:
        _relaunch_under_torchrun(nproc)
    quiet_datasets()
    if resume is not None:
        if not (resume / "config.yaml").is_file():
            raise TranslateError(f"--resume {resume}: no config.yaml there; is it a run folder?")
        named = {"max_minutes": max_minutes, "max_steps": max_steps, "name": resume.name, "device": device,
                 "data_dir": data_dir, "direction": direction, "init_from": init_from}
        cfg = apply_overrides(resolve_config(resume / "config.yaml", set_, **named), {"runs_dir": str(resume.parent)})
    else:
        cfg = resolve_config(config, set_, data_dir=data_dir, direction=direction, name=name, device=device,
                             max_minutes=max_minutes, max_steps=max_steps, init_from=init_from)
    result = run_training(cfg, resume=resume is not None)
    if os.environ.get("RANK", "0") != "0":  # under torchrun the main process reports
        return
    typer.echo(f"{result.stop_reason}: {result.state.step} steps, best dev BLEU {result.best_bleu:.2f}; "
               f"checkpoints in {result.run_dir}/best and {result.run_dir}/last")


def _penalty_table(rows: list[Any]) -> str:
    best = max(rows, key=lambda r: r.report.bleu)
    lines = [f"{'alpha':>6}  {'beta':>6}  {'BLEU':>6}  {'chrF':>6}  length ratio   ({rows[0].report.bleu_signature})"]
    lines += [f"{r.alpha:6g}  {r.beta:6g}  {r.report.bleu:6.2f}  {r.report.chrf:6.2f}  {r.report.length_ratio:12.3f}"
              + ("  <- best BLEU" if r is best else "") for r in rows]
    return "\n".join(lines)


@app.command()
@handle_errors
def evaluate(checkpoint: CheckpointsOpt = None,
             split: Annotated[SplitChoice, typer.Option(help="dev, or test once you are done tuning.")] = "dev",
             data_dir: DataDirOpt = None, beam: BeamOpt = None, direction: DirectionOpt = None, device: DeviceOpt = None,
             output: Annotated[Path | None, typer.Option("--output", "-o", help=(
                 "Write hypotheses here (and <output>.report.json)."))] = None,
             set_: Annotated[list[str] | None, typer.Option("--set", help=(
                 "Decode the same weights with other settings: model.attention.* (e.g. "
                 "model.attention.kind=hard: a soft model read with its argmax position; "
                 "model.attention.hard.marginal_decoding=mixture) or decode.* (e.g. decode.length_penalty=1.4)."))] = None,
             length_penalty: Annotated[list[float] | None, typer.Option("--length-penalty", help=(
                 "Tune the beam search's length penalty (GNMT alpha): give several, e.g. --length-penalty 0.6 "
                 "--length-penalty 1.0 --length-penalty 1.4; prints BLEU, chrF and length ratio for each and "
                 "the best (tune on dev, never on test)."))] = None,
             coverage_penalty: Annotated[list[float] | None, typer.Option("--coverage-penalty", help=(
                 "Tune the beam search's coverage penalty (GNMT beta: ranks lower a translation that left source "
                 "words unattended, i.e. dropped content): give several, e.g. --coverage-penalty 0 "
                 "--coverage-penalty 0.2; with --length-penalty, every pair is tried."))] = None,
             glossary: Annotated[Path | None, typer.Option(help=(
                 "Term pairs the translations must hold (TSV en<TAB>zh); prints how many of the terms in the "
                 "sources were used, e.g. --data-dir data/everyday --glossary data/everyday/glossary.tsv."))] = None,
             lexicon: LexiconOpt = None, ensemble: EnsembleOpt = False) -> None:
    """Translate dev or test, print BLEU and chrF with the sacrebleu signatures.

    A run's checkpoint writes hypotheses and report.<split>.json into the run folder; a released
    model, a lone checkpoint, an ensemble (--checkpoint given several times) or one decoded with --set
    only prints, unless --output is given. Nothing is written into a checkpoint.
    """
    from translate.evaluation.evaluate import evaluate_checkpoint, tune_penalties

    quiet_datasets()
    overrides = parse_set(set_ or [])
    checkpoints = checkpoint or [DEFAULT_CHECKPOINT]
    if length_penalty or coverage_penalty:
        rows = tune_penalties(checkpoints, list(length_penalty or []), list(coverage_penalty or []), plain(split),
                              data_dir, plain(device) or "cpu", overrides, ensemble, lexicon)
        typer.echo(_penalty_table(rows))
        return
    result, written = evaluate_checkpoint(checkpoints, plain(split), data_dir, beam, output, plain(direction),
                                          plain(device) or "cpu", overrides, glossaries(glossary), lexicon, ensemble)
    typer.echo(result.report.summary())
    if result.adequacy is not None:
        typer.echo(f"dropped/repeated content: {result.adequacy.summary()}")
    if result.terms is not None:
        used, total = result.terms
        typer.echo(f"glossary terms used: {used} of {total} ({100 * used / max(total, 1):.1f} %)")
    for path in written:
        typer.echo(f"wrote {path}")


@app.command()
@handle_errors
def info(checkpoint: CheckpointOpt = DEFAULT_CHECKPOINT) -> None:
    """Print the default locations (models, corpus, cache), then describe a checkpoint."""
    from translate.checkpoint.store import load_checkpoint
    from translate.config import paths

    for label, where, env in (("released models", paths.models_dir(), "MODELS"),
                              ("default corpus", paths.default_data_dir(), "DATA"), ("cache", paths.cache_dir(), "CACHE")):
        typer.echo(f"{label}: {where} ($TRANSLATE_{env} overrides)")
    loaded = load_checkpoint(paths.find_model(checkpoint))
    art = loaded.artifact
    typer.echo(f"checkpoint: {loaded.path}")
    typer.echo(f"direction: {art.direction}")
    typer.echo(f"model: {art.model.rnn_type} hidden {art.model.hidden_size}, layers {art.model.encoder_layers}+"
               f"{art.model.decoder_layers}, attention {art.model.mechanism}")
    typer.echo(f"parameters: {loaded.model.num_parameters():,}")
    typer.echo(f"vocabulary: {len(loaded.src_tokenizer)} src / {len(loaded.tgt_tokenizer)} tgt pieces")
    d = art.decode
    typer.echo(f"decoding: beam {d.beam_size}, length penalty {d.length_penalty:g}, coverage penalty "
               f"{d.coverage_penalty:g}, names lexicon "
               f"{'on' if d.lexicon else 'off'} by default")
    typer.echo(f"meta: {json.dumps(loaded.meta, ensure_ascii=False)}")


@app.command("upgrade-checkpoint")
@handle_errors
def upgrade_checkpoint(source: Annotated[Path, typer.Argument(help="Checkpoint folder to upgrade.")],
                       output: Annotated[Path | None, typer.Option("--output", "-o", help=(
                           "Write the upgraded checkpoint here (default: replace SOURCE atomically)."))] = None) -> None:
    """Re-save a checkpoint in the current format (weights and tokenizers copied byte for byte)."""
    from translate.checkpoint.store import upgrade_checkpoint as upgrade

    typer.echo(f"upgraded: {upgrade(source, output)}")


def _stored(what: str, key: str, example: str) -> str:
    """The help of a release option that stores a decoding setting: what it stores, and how to measure it."""
    return (f"Store {what} (decode.{key}; measure it first: translate decide --candidate-set decode.{key}={example}); "
            "default: as the checkpoint says.")


# release options that store how numbers, dates and clocks are read (as stand-ins) and written
NoDoubledNumbersOpt = Annotated[bool | None, typer.Option(help=_stored(
    "whether the words a translation writes for a number just before its digits are dropped (三365天 as 365天)",
    "no_doubled_numbers", "true"), show_default=False)]
NumberStandinsOpt = Annotated[bool | None, typer.Option(help=_stored(
    "whether large numbers (12,000; 8 million; 800万) are searched as stand-ins the model copies and "
    "written back as the target writes them (with --names standins)", "number_standins", "true"), show_default=False)]
DateStandinsOpt = Annotated[bool | None, typer.Option(help=_stored(
    "whether dates and times of day (March 12, 7:40 p.m., 晚上七点四十) are searched as a weekday or noon "
    "and written back as the target writes them (with --names standins)", "date_standins", "true"), show_default=False)]
ClockStandinsOpt = Annotated[bool | None, typer.Option(help=_stored(
    "whether clocks alone (17:30) are searched as six o'clock and written back as they are (with --names "
    "standins)", "clock_standins", "true"), show_default=False)]
DatesInWordsOpt = Annotated[bool | None, typer.Option(help=_stored(
    "whether, with --date-standins, dates and times said in words (the tenth of May, half past six, a quarter to "
    "four) are read as dates and times too", "dates_in_words", "true"), show_default=False)]
NoAddedNegationOpt = Annotated[bool | None, typer.Option(help=_stored(
    "whether the beam's translations that negate where the source says no \"not\" (neither a negation word nor a "
    "word like \"dislike\") come after the others", "no_added_negation", "true"), show_default=False)]
NoMadeUpWordsOpt = Annotated[bool | None, typer.Option(help=_stored(
    "whether an English translation's beam puts those that spell a made-up word (\"Is itn't dark?\") after the "
    "others", "no_made_up_words", "true"), show_default=False)]


@app.command()
@handle_errors
def release(run: Annotated[Path, typer.Argument(help="Run folder (its best/ is released) or checkpoint folder.")],
            target: Annotated[Path, typer.Argument(help="Folder to write the released model to, e.g. checkpoints/en-zh.")],
            recipe: Annotated[str, typer.Option(help=(
                "The command that trains it, for the model card (default: translate train -c recipes/<direction>.yaml)."))] = "",
            extra_data: Annotated[str, typer.Option(help="Training data besides Tatoeba, with its license (model card).")] = "",
            stages: Annotated[str, typer.Option(help="How the model was trained in stages (model card).")] = "",
            length_penalty: Annotated[float | None, typer.Option(help=(
                "Store this length penalty in the released decoding settings (tune it on dev first: "
                "translate evaluate --length-penalty ...)."))] = None,
            coverage_penalty: Annotated[float | None, typer.Option(help=(
                "Store this coverage penalty (GNMT beta) in the released decoding settings (tune it on dev "
                "first: translate evaluate --coverage-penalty ...)."))] = None,
            lexicon: Annotated[bool | None, typer.Option(help=(
                "Store whether the names lexicon is on by default in the released decoding settings (measure "
                "it on dev first: translate evaluate --lexicon / --no-lexicon); default: as the checkpoint says."),
                show_default=False)] = None,
            block_repeats: Annotated[bool | None, typer.Option(help=_stored(
                "whether the search may say a run twice in a row (--block-repeats: never, unless the source does)",
                "block_repeats", "true"), show_default=False)] = None,
            block_ngrams: Annotated[int | None, typer.Option(help=_stored(
                "the n-gram size the search may not say twice anywhere in a translation (0 = off)", "block_ngrams", "2"),
                show_default=False)] = None,
            keep_negation: Annotated[bool | None, typer.Option(help=_stored(
                "whether, for a source that negates, the beam's best translation that keeps the negation is taken",
                "keep_negation", "true"), show_default=False)] = None,
            no_added_numbers: Annotated[bool | None, typer.Option(help=_stored(
                "whether the beam's translations that write a number the source does not say come after the others",
                "no_added_numbers", "true"), show_default=False)] = None,
            chinese_punctuation: Annotated[bool | None, typer.Option(help=_stored(
                "whether a Chinese translation's half-width marks next to Han characters become full-width",
                "chinese_punctuation", "true"), show_default=False)] = None,
            numerals_as_digits: Annotated[bool | None, typer.Option(help=_stored(
                "whether a Chinese source's numerals of 11 and more are read as digits (三百六十五天 as 365天)",
                "numerals_as_digits", "true"), show_default=False)] = None,
            no_doubled_numbers: NoDoubledNumbersOpt = None, number_standins: NumberStandinsOpt = None,
            date_standins: DateStandinsOpt = None, clock_standins: ClockStandinsOpt = None,
            dates_in_words: DatesInWordsOpt = None, no_made_up_words: NoMadeUpWordsOpt = None,
            no_added_negation: NoAddedNegationOpt = None,
            keep_numbers: Annotated[bool | None, typer.Option(help=_stored(
                "whether a translation that loses a number of its source is searched again, bound to write it",
                "keep_numbers", "true"), show_default=False)] = None,
            names: Annotated[str | None, typer.Option(help=_stored(
                "how the names lexicon's people and places reach the translation (forced into the search, or "
                "standins: searched as names the model knows and written back)", "names", "standins"),
                show_default=False)] = None,
            threads: Annotated[int, typer.Option(help="CPU threads for the test decoding (its speed goes in the card).")] = 2,
            member: Annotated[list[Path] | None, typer.Option(help=(
                "A run or checkpoint shipped with the model for ensemble decoding (same direction and "
                "vocabularies; give it once per member): fp16 copies in TARGET/members/, the ensemble's "
                "test scores in the card, decoded with --ensemble. Default: the members RUN already ships."))] = None,
            data_dir: DataDirOpt = None) -> None:
    """Release a model: an fp16 copy with its fast-path graphs, test scores measured on that copy with its
    decoding settings (beam 5 and greedy; the names lexicon where they turn it on), BLEU by source length,
    digits kept, and MODEL_CARD.md; with --member, ensemble members and the ensemble's scores. No training
    state or paths are copied; releasing a released model again gives the same weights and scores.

    Example: translate release runs/zh-en-a checkpoints/zh-en --member runs/zh-en-b --member runs/zh-en-c"""
    import torch

    from translate.release.release import timed_release

    quiet_datasets()
    torch.set_num_threads(threads)
    card, seconds, size = timed_release(run, target, recipe=recipe, extra_data=extra_data, stages=stages,
                                        length_penalty=length_penalty, coverage_penalty=coverage_penalty,
                                        lexicon=lexicon, block_repeats=block_repeats, block_ngrams=block_ngrams,
                                        keep_numbers=keep_numbers, keep_negation=keep_negation,
                                        no_added_numbers=no_added_numbers, numerals_as_digits=numerals_as_digits,
                                        number_standins=number_standins, no_doubled_numbers=no_doubled_numbers,
                                        date_standins=date_standins, clock_standins=clock_standins,
                                        dates_in_words=dates_in_words, no_made_up_words=no_made_up_words,
                                        no_added_negation=no_added_negation,
                                        chinese_punctuation=chinese_punctuation,
                                        names=names,
                                        data_dir=data_dir,
                                        members=member)
    typer.echo(card)
    typer.echo(f"released {target} ({size:.1f} MB) in {seconds:.0f} s")


@app.command()
@handle_errors
def distil(out: Annotated[Path, typer.Option("--out", "-o", help=(
               "Dataset folder to write: train.tsv (the distilled pairs), dev.tsv and test.tsv copied, teacher.tsv "
               "(each line's teacher output and score), distil-report.json. Give the same folder again to resume."))],
           checkpoint: Annotated[list[str] | None, typer.Option("--teacher", "-m", help=(
               "The teacher: a run folder, a checkpoint folder or a released model name; several = an ensemble "
               "(mean log-probabilities). Default: the released model of --direction."))] = None,
           direction: DirectionOpt = None, data_dir: DataDirOpt = None,
           split: Annotated[str, typer.Option(help="The split to distil (train, or dev/test for a look).")] = "train",
           beam: BeamOpt = None, ensemble: EnsembleOpt = False,
           engine: EngineOpt = "auto",
           lexicon: Annotated[bool, typer.Option(help="Let the names lexicon re-decode the teacher's outputs.")] = False,
           keep_references: Annotated[bool, typer.Option(help=(
               "Write the original pairs beside the distilled ones (a pair the teacher reproduced appears once)."))] = False,
           max_length_ratio: Annotated[float, typer.Option(help=(
               "Drop a distilled pair whose target/source piece ratio is more than this many times above or below "
               "the corpus's median ratio (e.g. 2.0); 0 keeps every non-empty output."))] = 0.0,
           batch_size: Annotated[int | None, typer.Option(help="Sentences per search batch.")] = None,
           device: DeviceOpt = None) -> None:
    """Sequence-level knowledge distillation: a teacher translates a corpus's sources, and its outputs
    become the targets of a new dataset folder for `translate train --data-dir`.

    The teacher decodes in chunks; each is synced to teacher.tsv before the next, so an interrupted run
    given the same options resumes and writes the same corpus. Dev and test keep their references.

    Examples:
      translate distil -m zh-en --ensemble --direction zh-en --out runs/kd-zh-en --keep-references
      translate train -c recipes/sa512.yaml --direction zh-en --data-dir runs/kd-zh-en --init-from zh-en
    """
    from translate.inference.build import resolve_engine
    from translate.training.distillation import distil_corpus

    quiet_datasets()
    logging.getLogger("translate").setLevel(logging.INFO)
    chosen = resolve_engine(plain(engine), plain(device) or "cpu", False)
    report = distil_corpus(checkpoint or [], out, direction=plain(direction), data_dir=data_dir or "", split=split,
                           beam=beam, ensemble=ensemble, engine=chosen, lexicon=lexicon,
                           keep_references=keep_references, max_length_ratio=max_length_ratio,
                           batch_size=batch_size, device=plain(device) or "cpu", progress=lambda m: typer.echo(m, err=True))
    typer.echo(report.summary())
    typer.echo(f"wrote {out / 'train.tsv'}")


for command in (text, file, models, serve, compare, summary, decide, significance):  # cli/translation.py, serve.py, study.py, decide.py, significance.py
    app.command()(command)
for registered in app.registered_commands:
    registered.help = help_text(registered.callback.__doc__ or "") if registered.callback else None
