"""Readers on awkward input, cleaning, tokenizer round trips, batching."""

from pathlib import Path

import pytest

from tests.conftest import TINY_DIR
from translate.data.batch import collate
from translate.data.batching import token_batches
from translate.data.cleaning import clean, normalize_whitespace
from translate.data.readers import read_jsonl, read_text_pair, read_tsv
from translate.data.tokenizer import Tokenizer
from translate.errors import DataError
from translate.tokens import BOS_ID, EOS_ID, PAD_ID


def write(tmp_path: Path, name: str, data: bytes) -> Path:
    path = tmp_path / name
    path.write_bytes(data)
    return path


def test_tsv_bom_quotes_crlf_and_extra_columns(tmp_path: Path) -> None:
    path = write(tmp_path, "a.tsv", '\ufeffHe said "hi".\t他说"嗨"。\tCC-BY attribution\r\n\r\nNA\tnull\r\n'.encode())
    ds, report = read_tsv(path)
    assert ds["en"] == ['He said "hi".', "NA"]  # BOM stripped, quotes kept, NA stays text
    assert ds["zh"] == ['他说"嗨"。', "null"]
    assert report.rows == 2 and report.skipped["blank lines"] == [2]
    assert "extra columns" in report.summary()


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"one column only\n", r"a.tsv:1: expected 2 tab-separated columns"),
        (b"ok\tfine\n\xce\xd2\xca\xc7\tx\n", r"a.tsv:2: not valid UTF-8.*GB18030"),
        ("hi\t你好\n".encode("utf-16"), r"UTF-16"),
        (b"a\tb\nc\x00\td\n", r"a.tsv:2: NUL byte"),
        (b"", r"no sentence pairs"),
        (b"\n  \n", r"no sentence pairs"),
    ],
)
def test_tsv_errors_name_file_and_line(tmp_path: Path, data: bytes, message: str) -> None:
    with pytest.raises(DataError, match=message):
        read_tsv(write(tmp_path, "a.tsv", data))


def test_missing_file_and_directory(tmp_path: Path) -> None:
    with pytest.raises(DataError, match="file not found"):
        read_tsv(tmp_path / "nope.tsv")
    with pytest.raises(DataError, match="is a directory"):
        read_tsv(tmp_path)


def test_jsonl_and_text_pair(tmp_path: Path) -> None:
    ok = write(tmp_path, "a.jsonl", '{"en": "Hi.", "zh": "你好。"}\n{"translation": {"en": "Yes.", "zh": "是。"}}\n'.encode())
    ds, _ = read_jsonl(ok)
    assert ds["zh"] == ["你好。", "是。"]
    bad = write(tmp_path, "b.jsonl", b'{"en": "Hi.", "zh": "x"}\n{"en": oops}\n')
    with pytest.raises(DataError, match=r"b.jsonl:2: malformed JSON"):
        read_jsonl(bad)
    wrong = write(tmp_path, "c.jsonl", b'{"en": "Hi.", "de": "Hallo"}\n')
    with pytest.raises(DataError, match=r"c.jsonl:1: expected an object with string fields 'en' and 'zh'"):
        read_jsonl(wrong)
    en, zh = write(tmp_path, "t.en", b"a\nb\n"), write(tmp_path, "t.zh", "甲\n".encode())
    with pytest.raises(DataError, match="2 lines but .* has 1"):
        read_text_pair(en, zh)


def test_whitespace_normalisation() -> None:
    assert normalize_whitespace("  a\u3000b\u200bc\t\td \u00a0") == "a bc d"
    assert normalize_whitespace("x\x07y") == "x y"


def test_clean_counts_every_drop(tmp_path: Path) -> None:
    path = write(tmp_path, "a.tsv", "a\tb\na\tb\n \t空\nx\t" .encode() + ("长" * 50).encode() + b"\nlong\tz\n")
    ds, _ = read_tsv(path)
    cleaned, report = clean(ds, max_chars=40, max_ratio=3.0, filter_training=True)
    assert cleaned["en"] == ["a", "long"]
    assert report.dropped == {"duplicate": 1, "empty": 1, "over-long": 1}
    kept, report = clean(ds, max_chars=40, max_ratio=3.0, filter_training=False)
    assert len(kept) == 5 and not report.dropped  # dev/test rows are never dropped


def test_tokenizer_round_trip_keeps_fullwidth_punctuation(tiny_tokenizers: tuple[Tokenizer, Tokenizer]) -> None:
    src, tgt = tiny_tokenizers
    ds, _ = read_tsv(TINY_DIR / "dev.tsv")
    assert tgt.decode(tgt.encode(list(ds["zh"]))) == list(ds["zh"])  # identity normalisation: ，。？ kept
    assert src.decode(src.encode(list(ds["en"]))) == list(ds["en"])
    assert "？" in tgt.decode(tgt.encode(["车站在哪里？"]))[0]
    assert tgt.unk_rate(list(ds["zh"])) == 0.0
    assert not any(p.startswith("▁") for p in tgt.pieces(tgt.encode(["我喜欢茶。"])[0]))  # no dummy prefix for Chinese
    assert (PAD_ID, BOS_ID, EOS_ID) == (tgt.sp.pad_id(), tgt.sp.bos_id(), tgt.sp.eos_id())


def test_token_batches_respect_budget_and_cover_everything() -> None:
    src = [3, 9, 4, 12, 5, 7, 30, 2, 8, 6]
    tgt = [4, 8, 5, 11, 5, 6, 28, 3, 9, 7]
    batches = token_batches(src, tgt, batch_tokens=32, bucket_batches=2, seed=1, epoch=0)
    assert sorted(i for b in batches for i in b) == list(range(10))
    for batch in batches:
        assert len(batch) == 1 or max(max(src[i], tgt[i]) for i in batch) * len(batch) <= 32
    assert batches == token_batches(src, tgt, 32, 2, seed=1, epoch=0)  # deterministic
    assert batches != token_batches(src, tgt, 32, 2, seed=1, epoch=1)


def test_collate_pads_and_shifts() -> None:
    batch = collate([[5, 6, EOS_ID], [7, EOS_ID]], [[BOS_ID, 8, EOS_ID], [BOS_ID, 9, 10, EOS_ID]])
    assert batch.src.tolist() == [[5, 6, EOS_ID], [7, EOS_ID, PAD_ID]]
    assert batch.src_mask.tolist() == [[True, True, True], [True, True, False]]
    assert batch.tgt_in.tolist() == [[BOS_ID, 8, EOS_ID], [BOS_ID, 9, 10]]
    assert batch.tgt_out.tolist() == [[8, EOS_ID, PAD_ID], [9, 10, EOS_ID]]
    assert int((batch.tgt_out != PAD_ID).sum()) == 5


def test_tokenizer_training_streams_a_bounded_sample() -> None:
    import datasets

    from translate.data.corpus import sample_sentences

    ds = datasets.Dataset.from_dict({"en": [f"sentence {i}" for i in range(50)], "zh": ["句"] * 50})
    assert list(sample_sentences(ds, "en", limit=100)) == ds["en"]  # a small corpus: all of it, in order
    sample = list(sample_sentences(ds, "en", limit=20, seed=3))
    assert len(sample) == 20 and len(set(sample)) == 20 and set(sample) <= set(ds["en"])
    assert sample == list(sample_sentences(ds, "en", limit=20, seed=3))  # same seed, same sample


def test_reading_and_cleaning_stream_in_chunks(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """With chunks of 3 rows, duplicates across chunk boundaries are still found (first kept) and the
    rows come out in file order."""
    import datasets

    from translate.data import cleaning, readers

    monkeypatch.setattr(readers, "CHUNK_ROWS", 3)
    rows = ["a\t甲", "b\t乙", "c\t丙", "a\t甲", "d\t丁", " b \t乙", "e\t戊", "c\t丙"]
    ds, report = read_tsv(write(tmp_path, "t.tsv", ("\n".join(rows) + "\n").encode()))
    assert report.rows == 8 and ds["en"] == ["a", "b", "c", "a", "d", " b ", "e", "c"]
    monkeypatch.setattr(cleaning, "CHUNK_ROWS", 3)
    cleaned, clean_report = clean(ds, max_chars=40, max_ratio=9.0, filter_training=True)
    assert cleaned["en"] == ["a", "b", "c", "d", "e"] and cleaned["zh"] == ["甲", "乙", "丙", "丁", "戊"]
    assert clean_report.dropped == {"duplicate": 3} and clean_report.kept == 5
    # the same, streamed to an Arrow file (duplicates removed in a second pass over the file)
    file_report = cleaning.clean_to_file(ds, tmp_path / "clean.arrow", 40, 9.0, filter_training=True)
    on_disk = datasets.Dataset.from_file(str(tmp_path / "clean.arrow"))
    assert on_disk["en"] == cleaned["en"] and on_disk["zh"] == cleaned["zh"]
    assert (file_report.kept, file_report.dropped) == (5, {"duplicate": 3})
    kept_all = cleaning.clean_to_file(ds, tmp_path / "dev.arrow", 40, 9.0, filter_training=False)
    assert kept_all.kept == 8 and len(datasets.Dataset.from_file(str(tmp_path / "dev.arrow"))) == 8
    assert sorted(p.name for p in tmp_path.iterdir()) == ["clean.arrow", "dev.arrow", "t.tsv"]  # no draft left


def test_token_ids_cached_as_int32_and_batched_from_flat_arrays(
        tmp_path: Path, tiny_tokenizers: tuple[Tokenizer, Tokenizer]) -> None:
    from translate.data.batching import BatchStream, numericalize

    src_tok, tgt_tok = tiny_tokenizers
    text, _ = read_tsv(TINY_DIR / "train.tsv")
    ids = numericalize(text, "en", "zh", src_tok, tgt_tok, tmp_path, "k")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["k.ids2.arrow", "k.ids2.arrow.size"]  # no temporary left
    assert ids.features["src_ids"].feature.dtype == "int32" and ids.column_names == ["src_ids", "tgt_ids"]
    assert ids[0]["src_ids"] == [*src_tok.encode([text[0]["en"]])[0], EOS_ID]
    again = numericalize(text.select([0]), "en", "zh", src_tok, tgt_tok, tmp_path, "k")
    assert len(again) == len(text)  # the cached file is reused, not re-encoded
    limit = sorted(max(len(r["src_ids"]), len(r["tgt_ids"]) - 1) for r in ids)[len(ids) // 2]
    short = numericalize(text, "en", "zh", src_tok, tgt_tok, tmp_path, "short", max_tokens=limit)
    expected_rows = [r for r in ids if len(r["src_ids"]) <= limit and len(r["tgt_ids"]) <= limit + 1]
    assert 5 < len(short) < len(ids) and list(short) == expected_rows  # the over-long rows left out, order kept
    stream = BatchStream(short, batch_tokens=4 * limit, bucket_batches=2, seed=1)
    assert len(stream) == len(short) and stream.src_lens == [len(r["src_ids"]) for r in short]
    picked = [4, 0, 2]
    batch = stream.batch(picked)
    expected = collate([short[i]["src_ids"] for i in picked], [short[i]["tgt_ids"] for i in picked])
    assert batch.src.dtype == expected.src.dtype
    for name in ("src", "src_lens", "tgt_in", "tgt_out"):
        assert getattr(batch, name).tolist() == getattr(expected, name).tolist()


def test_cleaned_split_cached_and_memory_mapped(tmp_path: Path) -> None:
    import shutil

    from translate.config.schema import DataConfig
    from translate.data.corpus import read_clean

    data = tmp_path / "data"
    data.mkdir()
    write(data, "train.tsv", "a\t甲\nb\t乙\na\t甲\n".encode())
    cfg, cache = DataConfig(data_dir=str(data)), tmp_path / "cache"
    cache.mkdir()
    first_report: list[str] = []
    first = read_clean(cfg, "train", first_report, cache)
    again_report: list[str] = []
    again = read_clean(cfg, "train", again_report, cache)
    assert again["en"] == first["en"] == ["a", "b"] and again_report == first_report
    assert "dropped 1 duplicate" in again_report[0]
    assert len(list(cache.glob("text-*.arrow"))) == 1 and not list(cache.glob("*.tmp*"))
    moved = tmp_path / "moved"
    shutil.copytree(data, moved)  # the same bytes elsewhere: the cache serves it, the report names the new path
    moved_report: list[str] = []
    assert read_clean(DataConfig(data_dir=str(moved)), "train", moved_report, cache)["en"] == ["a", "b"]
    assert str(moved / "train.tsv") in moved_report[0] and str(data / "train.tsv") not in moved_report[0]
    write(data, "train.tsv", "c\t丙\n".encode())  # new content: a new cache entry, not the old text
    assert read_clean(cfg, "train", [], cache)["en"] == ["c"]


def test_subword_sampling_resegments_each_batch_and_keeps_its_text_and_limits(
        tmp_path: Path, tiny_tokenizers: tuple[Tokenizer, Tokenizer]) -> None:
    from translate.data.batching import BatchStream, numericalize
    from translate.data.sampling import SubwordSampler

    src_tok, tgt_tok = tiny_tokenizers
    text, _ = read_tsv(TINY_DIR / "train.tsv")
    limit = 40
    ids = numericalize(text, "en", "zh", src_tok, tgt_tok, tmp_path, "k", max_tokens=limit)
    picked = list(range(min(16, len(ids))))

    def draws(seed: int, count: int) -> list[tuple[list[list[int]], list[list[int]]]]:
        stream = BatchStream(ids, batch_tokens=400, bucket_batches=2, seed=1,
                             sampler=SubwordSampler(src_tok, tgt_tok, 0.1, limit, seed))
        out = []
        for _ in range(count):
            batch = stream.batch(picked)
            src = [row[:n].tolist() for row, n in zip(batch.src, batch.src_lens.tolist())]
            tgt = [[BOS_ID, *[t for t in row.tolist() if t != PAD_ID]] for row in batch.tgt_out]
            out.append((src, tgt))
        return out

    best_src = [ids[i]["src_ids"] for i in picked]
    best_tgt = [ids[i]["tgt_ids"] for i in picked]
    samples = draws(seed=3, count=6)
    for src, tgt in samples:
        assert all(s[-1] == EOS_ID and len(s) <= limit for s in src)
        assert all(t[0] == BOS_ID and t[-1] == EOS_ID and len(t) <= limit + 1 for t in tgt)
        assert src_tok.decode(src) == src_tok.decode(best_src)  # another segmentation of the same text
        assert tgt_tok.decode(tgt) == tgt_tok.decode(best_tgt)
    assert any(src != best_src for src, _ in samples) and any(tgt != best_tgt for _, tgt in samples)
    assert len({str(s) for s in samples}) > 1  # each draw segments anew
    assert draws(seed=3, count=6) == samples  # seeded: a rerun draws the same segmentations


def test_every_configurable_format_has_a_registered_reader_and_others_are_named() -> None:
    import typing

    from translate.config.schema import DataConfig
    from translate.data.readers import READERS, read_split

    assert set(typing.get_args(typing.get_type_hints(DataConfig)["format"])) == set(READERS)
    cfg = DataConfig()
    object.__setattr__(cfg, "format", "parquet")  # a format the schema might gain before its reader
    with pytest.raises(DataError, match="data.format='parquet' has no reader; known formats: tsv, text, jsonl, hf"):
        read_split(cfg, "train")
