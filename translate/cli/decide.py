"""`translate decide`: the release rule (translate.release.rule) applied to a candidate and the released model."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from translate.cli.common import BeamOpt, DataDirOpt, handle_errors, quiet_datasets
from translate.errors import ConfigError

NOT_SHIPPED = 3  # the exit status of a candidate that does not meet the rule

CandidateOpt = Annotated[list[str], typer.Option(
    "--candidate", "-c", help=("The candidate: a run folder (its best/), a checkpoint folder or a released name. "
                               "Give it once per seed: the seeds then vary in the test as the sentences do."))]
AgainstOpt = Annotated[list[str] | None, typer.Option(
    "--against", "-a", help=("What it must beat: by default the released model of the candidate's direction; give "
                             "it several times for several seeds."))]
CandidateSetOpt = Annotated[list[str] | None, typer.Option(
    "--candidate-set", help=("Decode the candidate with these settings (decode.* or model.attention.*), e.g. "
                             "decode.coverage_penalty=0.4: a decoding candidate on the released weights."))]
AgainstSetOpt = Annotated[list[str] | None, typer.Option(
    "--against-set", help="Decode the model it must beat with these settings (as --candidate-set).")]
DecisionDirOpt = Annotated[Path | None, typer.Option(help=(
    "Folder whose test.tsv is the decision split; default: data/everyday (its dev.tsv is for choices)."))]
LooksOpt = Annotated[int, typer.Option(min=1, help=(
    "How many times this candidate has been decided, this time included: a repeated look tests at "
    "0.05 / LOOKS (Bonferroni), so deciding again cannot buy a verdict."))]
FOR_TESTS = {"bleu": "BLEU", "stutter": "stutter", "numbers-lost": "numbers lost", "repeats": "repeats",
             "negation-lost": "negation lost", "numbers-added": "numbers added",
             "numbers-doubled": "numbers doubled", "made-up-words": "made-up words", "negation-added": "negation added",
             "quantities": "numbers lost, quantities set", "names": "names lost, names set"}
ForOpt = Annotated[list[str] | None, typer.Option(
    "--for", help=("The test the candidate is for, named in its plan before the decision (give it again for "
                   "several): " + ", ".join(FOR_TESTS) + ". Only those can call it better (Holm over them, each "
                   "at 0.05 when one); every defect still may not be worse. Default: all of them, Holm over them."))]
OutputOpt = Annotated[Path | None, typer.Option("--output", "-o", help=(
    "Write the verdict, both comparisons and every side's hypotheses here (JSON), and its table beside it "
    "(the same name with .md)."))]


@handle_errors
def decide(candidate: CandidateOpt, against: AgainstOpt = None, candidate_set: CandidateSetOpt = None,
           against_set: AgainstSetOpt = None, decision_dir: DecisionDirOpt = None, data_dir: DataDirOpt = None,
           beam: BeamOpt = None, looks: LooksOpt = 1, for_tests: ForOpt = None, output: OutputOpt = None) -> None:
    """Whether a candidate may replace the released model, by the release rule. On the everyday decision
    split (data/everyday/test.tsv, which no choice reads) it must be better: higher BLEU (the sentences
    and, where several are given, the seeds resampled), or fewer translations with a defect (that
    stutter, lose a number of the source, repeat themselves, lose the negation, add a number; McNemar; numbers also on
    the quantities set, names on the names set) with BLEU not worse beyond 0.5 (95 % interval), these
    tests one family at 0.05 (Holm; only those named with --for where the plan names them); it must not
    have a defect more often there (McNemar, p < 0.05); and on Tatoeba test its BLEU must not be worse
    beyond 0.5 (95 % interval).
    Each side decodes as `translate evaluate` does (its own decoding settings, the names lexicon where
    they turn it on). Prints the comparisons and the verdict; exit status 0 when the candidate ships, 3
    when it does not (every missed condition named).

    Example: translate decide --candidate en-zh --candidate-set decode.block_repeats=true --for stutter"""
    import dataclasses

    from translate.config.loading import parse_set
    from translate.release.record import verdict_table
    from translate.release.rule import decide_models

    unknown = [name for name in for_tests or [] if name not in FOR_TESTS]
    if unknown:
        raise ConfigError(f"--for {unknown[0]}: not a test of the rule; one of {', '.join(FOR_TESTS)}")
    quiet_datasets()
    tests = [FOR_TESTS[name] for name in for_tests] if for_tests else None
    verdict, direction, sides = decide_models(candidate, against, parse_set(candidate_set or []),
                                              parse_set(against_set or []), decision_dir, data_dir, beam, looks,
                                              tests=tests)
    sizes = len(sides["candidate"].decision[0]), len(sides["candidate"].test[0])
    for label, comparison, size in (("decision split", verdict.decision, sizes[0]),
                                    ("Tatoeba test", verdict.test, sizes[1])):
        typer.echo(f"{label} ({size} sentences): candidate {comparison.mean_a:.2f}, against {comparison.mean_b:.2f} "
                   f"BLEU, difference {comparison.delta:+.2f} [{comparison.ci_low:+.2f}, {comparison.ci_high:+.2f}], "
                   f"p {comparison.p_value:.3f}")
    for name, paired in verdict.defects.items():
        where = f"the {name.split(', ')[1]}" if ", " in name else "the decision split"
        typer.echo(f"{name.split(',')[0]} on {where}: candidate {paired.candidate}, against {paired.against} of "
                   f"{paired.sentences} sentences (only the candidate {paired.candidate_only}, only against "
                   f"{paired.against_only}), McNemar p {paired.p_value:.3f}")
    typer.echo("ships: it meets the release rule" if verdict.ships else "does not ship: " + "; ".join(verdict.reasons))
    if output is not None:
        record = {**verdict.to_dict(), "direction": direction,
                  **{name: dataclasses.asdict(side) for name, side in sides.items()}}
        output.write_text(json.dumps(record, indent=1, ensure_ascii=False), encoding="utf-8")
        output.with_suffix(".md").write_text(verdict_table(record), encoding="utf-8")
        typer.echo(f"wrote {output} and {output.with_suffix('.md')} (its table)")
    if not verdict.ships:
        raise typer.Exit(NOT_SHIPPED)
