"""`translate significance`: two systems' outputs on the same source, any number of seeds each, by the
project's seed-and-sentence test (translate.evaluation.significance)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from translate.cli.common import handle_errors
from translate.errors import ConfigError

RefOpt = Annotated[Path, typer.Option("--ref", help="The references, one sentence a line (UTF-8).")]
SideOpt = Annotated[list[Path], typer.Option(help=(
    "One seed's hypotheses, one sentence a line, as many lines as --ref; give the option once per seed."))]
TokenizeOpt = Annotated[str | None, typer.Option(help=(
    "sacrebleu's tokenizer: zh for Chinese references, 13a for English; default: zh where the references "
    "are mostly Han characters, else 13a."))]
MarginOpt = Annotated[float, typer.Option(min=0.0, help=(
    "The equivalence margin in BLEU, declared before the data is seen: 'equivalent' when both one-sided tests "
    "against +-MARGIN reject at 5 %."))]
JsonOpt = Annotated[bool, typer.Option("--json", help=(
    "Print one JSON object: delta, ci_low, ci_high, p_value, verdict, seeds_needed and the test's parts."))]


def _lines(path: Path, what: str) -> list[str]:
    try:
        return path.read_text(encoding="utf-8").splitlines()
    except FileNotFoundError:
        raise ConfigError(f"{what}: no such file: {path}") from None
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{what}: {path} is not UTF-8 text (byte {exc.start})") from None


@handle_errors
def significance(ref: RefOpt, a: SideOpt, b: SideOpt, tokenize: TokenizeOpt = None, margin: MarginOpt = 0.5,
                 json_: JsonOpt = False) -> None:
    """Is system A better than system B? BLEU of each seed's hypotheses against the references, the
    difference of the two sides' means with its 95 % interval and p-value by the seed-and-sentence test
    (Welch's t on the seeds' BLEU, plus the test set's own part estimated by a sentence bootstrap without
    counting any seed's sentence noise twice), and a verdict: "decided" (p < 0.05), "equivalent" (two
    one-sided tests inside +-MARGIN) or "not resolved". With one seed on a side its seed variance is not
    measured and the verdict is never decided nor equivalent. "seeds needed": the seeds a side that give
    80 % power for a difference of the size observed (0: more seeds cannot, the test set's part is too
    large). Exit status 0 whatever the verdict.

    Example: translate significance --ref test.zh --a a1.txt --a a2.txt --a a3.txt --b b1.txt --b b2.txt --b b3.txt"""
    from translate.data.cleaning import detect_language
    from translate.evaluation.significance import compare_runs

    refs = _lines(ref, "--ref")
    sides = []
    for option, paths in (("--a", a), ("--b", b)):
        runs = [_lines(path, option) for path in paths]
        for path, lines in zip(paths, runs):
            if len(lines) != len(refs):
                raise ConfigError(f"{option} {path}: {len(lines)} lines, but --ref {ref} has {len(refs)}; every "
                                  "file holds one line per sentence of the same source")
        sides.append(runs)
    if tokenize not in (None, "zh", "13a"):
        raise typer.BadParameter(f"{tokenize!r}: use zh or 13a", param_hint="--tokenize")
    tgt_lang = {"zh": "zh", "13a": "en"}.get(tokenize or "", "") or detect_language("".join(refs[:500]))
    result = compare_runs(sides[0], sides[1], refs, tgt_lang, aso=False, margin=margin)
    record = {"delta": round(result.delta, 4), "ci_low": round(result.ci_low, 4), "ci_high": round(result.ci_high, 4),
              "p_value": result.p_value, "verdict": result.verdict, "seeds_needed": result.seeds_needed,
              "mean_a": round(result.mean_a, 4), "mean_b": round(result.mean_b, 4), "seeds_a": result.seeds_a,
              "seeds_b": result.seeds_b, "seed_variance_measured": result.seed_variance_measured,
              "df": None if result.df == float("inf") else round(result.df, 2),
              "test_set_variance": round(result.test_set_variance, 6), "equivalence_p": result.equivalence_p,
              "margin": margin, "tokenize": "zh" if tgt_lang == "zh" else "13a"}
    if json_:
        typer.echo(json.dumps(record))
        return
    typer.echo(f"A {result.mean_a:.2f} BLEU ({result.seeds_a} seed(s)), B {result.mean_b:.2f} ({result.seeds_b}); "
               f"A - B {result.delta:+.2f} [{result.ci_low:+.2f}, {result.ci_high:+.2f}], p {result.p_value:.4f}: "
               f"{result.verdict}")
    if not result.seed_variance_measured:
        typer.echo("the seed variance of a side with one seed is not measured: give more seeds to decide")
    elif result.verdict == "not resolved" and result.seeds_needed is not None:
        typer.echo("more seeds cannot resolve it: the test set's own part is larger than the difference"
                   if result.seeds_needed == 0 else
                   f"seeds needed for 80 % power at this difference: {result.seeds_needed} a side")
