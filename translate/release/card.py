"""The model card (MODEL_CARD.md) of a released model, from the figures `translate.release.release` measured."""

from __future__ import annotations

from typing import Any

from translate.release.faithfulness import card_lines

# Everyday sentences written for the model card (not from Tatoeba, no reference): outputs shown as they are.
EVERYDAY = {
    "zh": ["我明天要去北京开会。", "这个问题很难解决。", "请问附近有没有便宜的酒店？", "他每天早上六点起床跑步。",
           "我们应该保护环境。", "这本书是我朋友送给我的生日礼物。"],
    "en": ["I will go to Beijing for a meeting tomorrow.", "This problem is hard to solve.",
           "Is there a cheap hotel nearby?", "He gets up at six every morning to run.",
           "We should protect the environment.", "This book was a birthday present from my friend."],
}


def _example(i: int, sources: list[str], refs: list[str], hyps: list[str]) -> list[str]:
    return [f"  - source: {sources[i]}", f"    reference: {refs[i]}", f"    output: {hyps[i]}"]


def _header(name: str, facts: dict[str, Any]) -> list[str]:
    t, art = facts["training"], facts["artifact"]
    return [f"# {name}: {art['direction']} attentional RNN", "",
            f"- architecture: {art['architecture']}, {facts['parameters']:,} parameters, fp16 weights",
            (f"- data: Tatoeba English–Mandarin shared split (train 26,206 pairs; CC-BY 2.0 FR, attribution: "
             f"the Tatoeba project and its contributors, https://tatoeba.org), SentencePiece unigram "
             f"{facts['vocab'][0]}/{facts['vocab'][1]} pieces"),
            *([f"- extra training data: {facts['extra_data']}"] if facts.get("extra_data") else []),
            f"- recipe: `{facts['recipe']}` ({t.get('stop_reason')})",
            *([f"- stages: {facts['stages']}"] if facts.get("stages") else []),
            (f"- training (last stage): {t.get('updates')} updates, {t.get('epochs')} epochs, {t.get('minutes')} min, "
             f"best dev BLEU {t.get('best_dev_bleu') or 0:.2f} (greedy)"),
            (f"- decoding: beam 5, length penalty {facts['length_penalty']:g} (GNMT alpha, chosen on dev), "
             + (f"coverage penalty {facts['coverage_penalty']:g} (GNMT beta, chosen on dev), "
                if facts.get("coverage_penalty") else "")
             + ("no stutter (the search never says a run twice in a row unless the source does), "
                if facts.get("block_repeats") else "")
             + (f"no n-gram of {facts['block_ngrams']} pieces said twice (unless the source says some words twice), "
                if facts.get("block_ngrams") else "")
             + ("numbers kept (a translation that does not say a source number's value is searched again, bound to "
                "write it), " if facts.get("keep_numbers") else "")
             + ("negation kept (for a source that negates, the beam's best translation that says \"not\"), "
                if facts.get("keep_negation") else "")
             + ("no negation added (the beam's translations that negate where the source says no \"not\" come last), "
                if facts.get("no_added_negation") else "")
             + ("no number added (the beam's translations that write a number the source does not say come last), "
                if facts.get("no_added_numbers") else "")
             + ("no made-up word (the beam's translations that spell a word English has not come last), "
                if facts.get("no_made_up_words") else "")
             + ("Chinese numerals read as digits (三百六十五天 as 365天), " if facts.get("numerals_as_digits") else "")
             + ("full-width marks next to Han characters (我爱这地方！), " if facts.get("chinese_punctuation") else "")
             + ("a number said once (no words for it just before its digits: 三365天 as 365天), "
                if facts.get("no_doubled_numbers") else "")
             + ("large numbers as stand-ins (12,000 and 800万 searched as a number the model copies, written back as "
                "the target writes them), " if facts.get("number_standins") and facts.get("names") == "standins" else "")
             + ("dates and times as stand-ins (March 12 and 7:40 p.m. searched as a weekday and noon, written back as "
                "the target writes them), " if facts.get("date_standins") and facts.get("names") == "standins" else "")
             + ("dates and times said in words too (the tenth of May, half past six), "
                if facts.get("dates_in_words") and facts.get("date_standins") and facts.get("names") == "standins" else "")
             + ("clocks as stand-ins (17:30 searched as six o'clock, written back as it is), "
                if facts.get("clock_standins") and facts.get("names") == "standins" else "")
             + ("names as stand-ins (people and places searched as names the model knows, their own forms written "
                "back), " if facts.get("lexicon") and facts.get("names") == "standins" else "")
             + "digits copied from the source")]


def _member_line(m: dict[str, Any]) -> str:
    """An ensemble member as the card names it: what is known of its run and its architecture."""
    known = [f"{label} {m[key]}" for key, label in (("run", "run"), ("seed", "seed")) if m.get(key) is not None]
    known += [f"{m[key]} {unit}" for key, unit in (("updates", "updates"), ("minutes", "min")) if m.get(key) is not None]
    if m.get("averaged_steps"):
        known.append("the average of the checkpoints at " + ", ".join(map(str, m["averaged_steps"])))
    return f"- ensemble member `{m['folder']}`: {', '.join(known + [str(m['mechanism'])])}, hidden {m['hidden']}"


def model_card(name: str, facts: dict[str, Any], split: tuple[list[str], list[str], list[str]],
               everyday: list[tuple[str, str]]) -> str:
    """`facts`: meta.json's figures plus artifact/architecture, parameters, vocab, recipe, length_penalty;
    `split`: test sources, references and beam-5 hypotheses; `everyday`: (source, output) pairs."""
    sources, refs, hyps = split
    lines = _header(name, facts)
    for label, fig in facts["scores"]["test"].items():
        label = (f"ensemble of {fig['models']} (this model and the members in members/, `--ensemble`, beam 5)"
                 if label == "ensemble" else label)
        lines.append(f"- test {label}: BLEU {fig['bleu']:.2f}, chrF {fig['chrf']:.2f} ({fig['bleu_signature']}; "
                     f"{fig['chrf_signature']}), {fig['sentences_per_second']} sentences/s on {fig['threads']} CPU threads")
    if facts.get("everyday"):
        e = facts["everyday"]
        lines.append(f"- everyday text (`data/everyday`, {e['sentences']} pairs written for the project, beam 5): "
                     f"BLEU {e['bleu']:.2f}, chrF {e['chrf']:.2f}")
        if e.get("ensemble"):
            lines.append(f"- the same as an ensemble with its members (`--ensemble`): BLEU {e['ensemble']['bleu']:.2f}, "
                         f"chrF {e['ensemble']['chrf']:.2f}")
        if e.get("with_glossary"):
            g = e["with_glossary"]
            lines.append(f"- the same with its glossary (`--glossary data/everyday/glossary.tsv`): BLEU {g['bleu']:.2f}, "
                         f"chrF {g['chrf']:.2f}, {g['terms_used']} of {g['terms']} terms used")
    lines += [_member_line(m) for m in facts.get("members", [])]
    by_length = facts["bleu_by_length"]
    lines += ["", f"BLEU by source length (beam 5, test; {by_length['unit']}, groups of about equal size):", "",
              "| source length | sentences | BLEU |", "|---|---|---|"]
    lines += [f"| {g['label']} | {g['sentences']} | {b:.2f} |" for g, b in zip(by_length["groups"], by_length["bleu"])]
    d = facts["digits_kept"]
    lines += ["", (f"Digits: of {d['sentences_with_digits']} test sources with digits, {d['kept']} "
                  f"({d['share']:.0%}) keep every digit string unchanged in the output.")]
    if facts.get("stutter"):
        st = facts["stutter"]
        lines += ["", (f"Stutter (a run said twice in a row that the source does not repeat, beam 5, test): "
                       f"{st['translations']} of {st['sentences']} translations ({st['translations'] / st['sentences']:.1%}); "
                       f"references {st['references']}.")]
    if facts.get("faithfulness"):
        lines += ["", *card_lines(facts["faithfulness"])]
    lines += ["",
              "## Known weaknesses (real outputs on test.tsv, beam 5)", "",
              "- numbers the output changed or lost (a number written as a word, as some references do, counts as lost):"]
    for i in d["lost"][:3]:
        lines += _example(i, sources, refs, hyps)
    lines += ["- the longest sentences (trained on short Tatoeba sentences):"]
    for i in sorted(range(len(sources)), key=lambda i: -len(sources[i]))[:3]:
        lines += _example(i, sources, refs, hyps)
    lines += [("- names and idioms: Tatoeba's names are mostly Tom and Mary; other names and idioms are often "
              "transliterated wrongly or translated word by word. A glossary (`--glossary terms.tsv`) puts given "
              "terms into the output; the names lexicon (CC-CEDICT's names, CC-BY-SA 4.0; docs/translating.md) is "
              + ("on by default for this model (`--no-lexicon` turns it off; the scores above are with it)."
                 if facts.get("lexicon") else "off by default for this model (`--lexicon` turns it on).")),
              "", "Everyday sentences from outside Tatoeba (written for this card, beam 5, shown as they come out):", ""]
    lines += [f"- {src} → {out}" for src, out in everyday]
    direction = facts["artifact"]["direction"]
    lines += ["", (f"Use: `translate text ...` picks this model for {direction} input; "
                   f"`translate text --checkpoint {name} ...` forces it."), ""]
    return "\n".join(lines)
