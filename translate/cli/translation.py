"""`translate text`, `translate file` and `translate models`: translating with the released models
(each line to the model of its direction) or a given checkpoint."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from translate.cli.common import BeamOpt, DeviceOpt, DirectionChoice, EngineChoice, EnsembleOpt, handle_errors, plain
from translate.config.loading import apply_overrides
from translate.errors import TranslateError

if TYPE_CHECKING:
    from translate.inference.router import Router
    from translate.inference.text_translator import TextTranslator, Translation
    from translate.inference.translator import Alignment

ModelOpt = Annotated[list[str] | None, typer.Option("--checkpoint", "-m", help=(
    "A run folder (uses its best/), a checkpoint folder, or a released model name (see `translate models`); "
    "default: the released model of each line's direction. Give it several times to decode an ensemble "
    "(same direction and vocabularies; mean log-probabilities)."))]
ForceDirectionOpt = Annotated[DirectionChoice | None, typer.Option(
    help="Translate every line in this direction instead of detecting it from the line's script.")]
EngineOpt = Annotated[EngineChoice, typer.Option(help=(
    "What runs the model: onnx (ONNX Runtime on graphs derived from the PyTorch model) starts fast (no "
    "PyTorch import); torch runs on GPUs and draws attention views and samples. Both translate in batches "
    "with the same search and give the same translations. auto = onnx on the CPU unless attention views or "
    "--sample ask for torch."))]


GlossaryOpt = Annotated[Path | None, typer.Option(help=(
    "Term pairs every translation must hold: a TSV file of en<TAB>zh lines, used in both directions "
    "(a sentence holding a term is decoded again by a constrained beam search, on the same engine)."))]


LexiconOpt = Annotated[bool | None, typer.Option(help=(
    "Use CC-CEDICT's names (places, people, brands: 北京 = Beijing) as glossary terms, English names "
    "matched with their capitals. Default: as the model's settings say (on for the released zh->en "
    "model, off for en->zh; see docs/translating.md)."), show_default=False)]


def glossaries(glossary: Path | None) -> list[Any]:
    """The user's glossary, if any."""
    if glossary is None:
        return []
    from translate.inference.glossary import Glossary

    return [Glossary.read(glossary)]


def _router(checkpoint: list[str] | None, direction: Any, device: Any, engine: str = "torch",
            terms: list[Any] | None = None, lexicon: bool | None = None, ensemble: bool = False,
            lines: int | None = None) -> Router:
    from translate.inference.router import Router

    return Router(checkpoint, plain(device) or "cpu", plain(direction), engine, terms or [],
                  lexicon, ensemble, lines)


def _engine(engine: Any, device: Any, attention: bool, sampling: bool = False) -> str:
    """`translate.inference.build.resolve_engine`, its refusal as a usage error (exit 2)."""
    from translate.errors import ConfigError
    from translate.inference.build import resolve_engine

    try:
        return resolve_engine(plain(engine), plain(device) or "cpu", attention, sampling)
    except ConfigError as exc:
        raise typer.BadParameter(str(exc), param_hint="--engine") from None


def _align(translator: TextTranslator, lines: list[str], results: list[list[Translation]]) -> list[Alignment]:
    from translate.inference.standins import align
    from translate.inference.translator import Translator
    from translate.inference.wrapping import model_translator

    translator = model_translator(translator)  # under glossaries and stand-ins: the model's attention
    assert isinstance(translator, Translator), "attention views run on the PyTorch engine (see _engine)"
    return align(translator, lines, [hyps[0] for hyps in results])  # on what the search read (stand-ins)


def _decode_cfg(translator: TextTranslator, beam: int | None, n_best: int = 1, batch_size: int | None = None,
                sampling: dict[str, Any] | None = None) -> Any:
    overrides: dict[str, Any] = {"n_best": n_best, **(sampling or {})}
    if beam is not None:
        overrides["beam_size"] = beam
    if batch_size is not None:
        overrides["batch_size"] = batch_size
    try:
        return apply_overrides(translator.decode, overrides)
    except TranslateError as exc:
        raise typer.BadParameter(str(exc).replace("n_best", "--n-best").replace("beam_size", "--beam")
                                 .replace("decode.sample", "--sample")) from None


def _translate_lines(router: Router, inputs: list[str], beam: int | None, n_best: int, show_attention: bool,
                     png: Path | None) -> list[str]:
    """Printed lines for `inputs`, in order: translations (with scores when n-best), then the
    attention view when asked; PNG heatmaps written to `png`."""
    from translate.study.plots import Heatmap, alignment_text, plot_heatmaps

    out: list[list[str]] = [[""] for _ in inputs]
    heatmaps: dict[int, Heatmap] = {}
    for translator, rows in router.groups(inputs):
        decode, lines = _decode_cfg(translator, beam, n_best), [inputs[i] for i in rows]
        if n_best == 1 and not (show_attention or png):  # paragraphs are split into sentences
            for i, translation in zip(rows, translator.translate_paragraphs(lines, decode)):
                out[i] = [translation]
            continue
        results = translator.translate_n_best(lines, decode)
        for i, hyps in zip(rows, results):
            out[i] = [h.text if n_best == 1 else f"{h.score:.4f}\t{h.text}" for h in hyps]
        if not (show_attention or png):
            continue
        for i, a in zip(rows, _align(translator, lines, results)):
            if show_attention:
                out[i].append(alignment_text(a.source_pieces, a.target_pieces, a.weights))
            heatmaps[i] = Heatmap(inputs[i][:48], a.weights, a.source_pieces, a.target_pieces)
    if png is not None and heatmaps:
        plot_heatmaps([[heatmaps[i]] for i in sorted(heatmaps)], png)
        typer.echo(f"wrote {png}", err=True)
    return [line for lines in out for line in lines]


def _interactive(router: Router, beam: int | None, n_best: int, show_attention: bool) -> None:
    typer.echo("Type a sentence in English or Chinese and press Enter; Ctrl-D quits.", err=True)
    while True:
        typer.echo("> ", err=True, nl=False)  # prompts on stderr: stdout holds only translations
        try:
            line = input()
        except EOFError:
            typer.echo("", err=True)
            return
        if line.strip():
            for out in _translate_lines(router, [line], beam, n_best, show_attention, None):
                typer.echo(out)


@handle_errors
def text(sentences: Annotated[list[str] | None, typer.Argument(help="Sentences; none = stdin (a prompt on a terminal).")] = None,
         checkpoint: ModelOpt = None, direction: ForceDirectionOpt = None, beam: BeamOpt = None,
         n_best: Annotated[int, typer.Option(help="Print this many translations per sentence, with scores.")] = 1,
         show_attention: Annotated[bool, typer.Option(help="Print which source pieces each output piece attended to.")] = False,
         attention_png: Annotated[Path | None, typer.Option(help="Write the attention heatmaps to this PNG.")] = None,
         device: DeviceOpt = None, engine: EngineOpt = "auto", glossary: GlossaryOpt = None,
         lexicon: LexiconOpt = None, ensemble: EnsembleOpt = False) -> None:
    """Translate sentences given as arguments, or lines on stdin; on a terminal without arguments, a prompt.

    Each line goes to the released model of its direction, detected from its script (Chinese when
    at least 30 % of its letters are Han characters). A paragraph is translated sentence by sentence.
    On the CPU, ONNX Runtime translates (no PyTorch import, so a fast start), with the same
    translations as --engine torch; attention views run on PyTorch.

    Examples:
      translate text "Where is the station?" "火车站在哪里？"
      translate text --show-attention --attention-png att.png "Tea, please."
      translate text -m runs/en-zh-a -m runs/en-zh-b "Tea, please."     (an ensemble)
      translate text --ensemble "我明天去北京。"      (the released model with its members)
      translate text --glossary terms.tsv "我明天去北京。"      (terms.tsv: Beijing<TAB>北京)
    """
    attention = show_attention or attention_png is not None
    terms = glossaries(glossary)
    if not sentences and sys.stdin.isatty():
        return _interactive(_router(checkpoint, direction, device,
                                    _engine(engine, device, attention), terms, lexicon, ensemble),
                            beam, n_best, show_attention)
    inputs = sentences or [line.rstrip("\n") for line in sys.stdin]
    router = _router(checkpoint, direction, device, _engine(engine, device, attention), terms, lexicon, ensemble,
                     len(inputs))
    for line in _translate_lines(router, inputs, beam, n_best, show_attention, attention_png):
        typer.echo(line)


@handle_errors
def file(input_path: Annotated[Path, typer.Argument(metavar="INPUT", help="Text file, one sentence per line.")],
         output: Annotated[Path | None, typer.Option("--output", "-o", help="Write here (default: stdout).")] = None,
         checkpoint: ModelOpt = None, direction: ForceDirectionOpt = None, beam: BeamOpt = None,
         batch_size: Annotated[int | None, typer.Option(help="Sentences per batch.")] = None,
         device: DeviceOpt = None, engine: EngineOpt = "auto", glossary: GlossaryOpt = None,
         lexicon: LexiconOpt = None,
         sample: Annotated[float, typer.Option(help=(
             "Draw each token at this temperature (1.0 = the model's own distribution) instead of searching: "
             "varied translations, e.g. synthetic sources for training (sampled back-translation); 0 = search. "
             "PyTorch engine; reproducible for the same --seed and --batch-size (config key decode.sample)."))] = 0.0,
         seed: Annotated[int, typer.Option(help="Seed of --sample's draws (config key decode.seed).")] = 1,
         ensemble: EnsembleOpt = False) -> None:
    """Translate a file line by line, in batches; output keeps the line order (empty lines stay empty).

    Examples:
      translate file in.txt -o out.txt
      translate file in.zh -o out.en --ensemble     (the released zh-en model with its members)
      translate file train.en -o bt.zh -m en-zh --sample 1.0 --seed 2     (sampled back-translation)
    """
    from translate.data.text import read_text_lines

    lines = read_text_lines(input_path)
    hyps = [""] * len(lines)
    terms = glossaries(glossary)
    sampling = {"sample": sample, "seed": seed} if sample else None
    router = _router(checkpoint, direction, device, _engine(engine, device, False, sampling is not None), terms,
                     lexicon, ensemble, len(lines))
    for translator, rows in router.groups(lines):
        decode = _decode_cfg(translator, beam, batch_size=batch_size, sampling=sampling)
        for i, hyp in zip(rows, translator.translate_paragraphs([lines[i] for i in rows], decode)):
            hyps[i] = hyp
    out_text = "".join(h + "\n" for h in hyps)
    if output is None:
        sys.stdout.write(out_text)
    else:
        output.write_text(out_text, encoding="utf-8")
        typer.echo(f"wrote {len(hyps)} translations to {output}", err=True)


@handle_errors
def models(as_json: Annotated[bool, typer.Option("--json", help="One JSON object per model.")] = False) -> None:
    """List the installed models with their direction, attention and test scores (from meta.json)."""
    from translate.checkpoint.files import read_artifact, read_meta
    from translate.config import paths

    names = paths.released_models()
    if not names:
        typer.echo(f"no models installed in {paths.models_dir()}")
    for name in names:
        folder = paths.models_dir() / name
        meta = read_meta(folder)
        art = read_artifact(folder, meta, notice=False)
        beam5 = meta.get("scores", {}).get("test", {}).get("beam5", {})
        row = {"name": name, "direction": art.direction, "mechanism": art.model.mechanism, "step": meta.get("step"),
               "test_bleu": beam5.get("bleu"), "test_chrf": beam5.get("chrf"), "bleu_signature": beam5.get("bleu_signature"),
               "size_mb": round(sum(p.stat().st_size for p in folder.rglob("*") if p.is_file()) / 1e6, 1),
               "members": len(paths.ensemble_members(folder)), "path": str(folder)}
        if as_json:
            typer.echo(json.dumps(row, ensure_ascii=False))
        else:
            bleu = "–" if row["test_bleu"] is None else f"{row['test_bleu']:.2f}"
            typer.echo(f"{name:<8} {art.direction}  {row['mechanism']:<16} test BLEU {bleu} (beam 5)  "
                       f"{row['size_mb']} MB  {folder}"
                       + (f"  (+{row['members']} ensemble members: --ensemble)" if row["members"] else ""))
