"""A released model's faithfulness report, for its model card: what BLEU averages away, measured as
users decode it.

- on the test split (`evaluation.adequacy.measure`, with the model's attention on its own outputs):
  stutter, negation lost, negation added, numbers kept, and source pieces the decoder never attended to (dropped
  content), each beside the references' own rate where one exists;
- on the quantities set (`data/quantities/test.tsv`, every pair with numbers in digits): numbers kept;
- on the names set (`data/names/test.tsv`, people and places of four kinds): names kept, by kind.

The two sets are read where they are at hand (a checkout), left out in an installed package.
"""

from __future__ import annotations

from typing import Any

from translate.config.loading import apply_overrides
from translate.config.paths import default_data_dir
from translate.config.schema import DataConfig
from translate.data.corpus import load_eval_split
from translate.data.quantities import numbers_kept
from translate.evaluation import names as names_kept
from translate.evaluation.adequacy import measure
from translate.inference.text_translator import TextTranslator
from translate.inference.translator import Translator
from translate.release.rule import DECISION_SPLIT


def faithfulness(translator: Translator, as_users: TextTranslator, sources: list[str], refs: list[str],
                 hyps: list[str]) -> dict[str, Any]:
    """The report: `translator` the PyTorch model (its attention), `as_users` it as users decode it
    (glossaries, lexicon and stand-ins as its settings say), `hyps` its beam-5 test outputs."""
    src, tgt = translator.src_lang, translator.tgt_lang
    alignments = translator.align(sources, translator.tgt_tokenizer.encode(hyps))
    test = measure(sources, hyps, src, tgt, refs, alignments=alignments)
    report: dict[str, Any] = {"test": {
        "sentences": test.sentences, "stutter": test.stutter, "reference_stutter": test.reference_stutter,
        "negation_lost": list(test.negation_lost), "reference_negation_lost": test.reference_negation_lost,
        "negation_added": list(test.negation_added), "reference_negation_added": test.reference_negation_added,
        "numbers": list(test.numbers), "unattended": test.unattended}}
    folder = default_data_dir().parent
    direction = f"{src}-{tgt}"
    if (folder / "quantities" / f"{DECISION_SPLIT}.tsv").is_file():
        q_sources, _ = load_eval_split(apply_overrides(DataConfig(), {"direction": direction,
                                                                      "data_dir": str(folder / "quantities")}),
                                       DECISION_SPLIT)
        counts = [numbers_kept(s, h, tgt) for s, h in zip(q_sources, as_users.translate(q_sources))]
        report["quantities"] = {"sentences": len(q_sources), "kept": sum(k for k, _ in counts),
                                "numbers": sum(n for _, n in counts)}
    names_file = folder / "names" / f"{DECISION_SPLIT}.tsv"
    if names_file.is_file():
        names_set = names_kept.read_names_set(names_file)
        result = names_kept.measure(names_set, as_users.translate(names_set.sources(src)), tgt)
        report["names"] = {k: result[k] for k in ("names", "kept", "sentences", "sentences_all_kept", "doubled", "by_kind")}
    return report


def card_lines(report: dict[str, Any]) -> list[str]:
    """The report as the model card's section."""
    t = report["test"]
    lost, negating = t["negation_lost"]
    kept, numbers = t["numbers"]
    lines = ["## Faithfulness (beam 5, as decoded by default)", "",
             "| what | this model | references |", "|---|---|---|",
             (f"| stutter: a run said twice in a row that the source does not repeat (test) | {t['stutter']:.1f} % "
             f"of {t['sentences']} | {t['reference_stutter']:.1f} % |"),
             (f"| negation lost: the source negates, the translation holds no negation (test) | {lost} of {negating} | "
             f"{t['reference_negation_lost']} of {negating} |"),
             f"| numbers kept: a source number's value said in any form (test) | {kept} of {numbers} | — |"]
    if "negation_added" in t:
        added, affirming = t["negation_added"]
        lines.insert(-1, f"| negation added: the translation negates, the source says no \"not\" (test) | {added} of "
                         f"{affirming} | {t['reference_negation_added']} of {affirming} |")
    if t.get("unattended") is not None:
        lines.append(f"| dropped content: source pieces the decoder never attended to (test) | {t['unattended']:.1f} % | — |")
    if "quantities" in report:
        q = report["quantities"]
        lines.append(f"| numbers kept on the quantities set (`data/quantities/test.tsv`, {q['sentences']} pairs) | "
                     f"{q['kept']} of {q['numbers']} | — |")
    if "names" in report:
        n = report["names"]
        kinds = ", ".join(f"{kind} {v['kept']} of {v['names']}" for kind, v in n["by_kind"].items())
        lines.append(f"| names kept on the names set (`data/names/test.tsv`, {n['sentences']} pairs; {kinds}) | "
                     f"{n['kept']} of {n['names']} ({100 * n['kept'] / max(n['names'], 1):.0f} %), {n['doubled']} doubled | — |")
    return lines
