"""The bad-input / fault matrix: every row is one case, with what the user must see.

Corpora, sentences to translate, configuration, checkpoints, training faults. Each case expects
one clear error (class + message naming the file, line, key or cause) or a safe result.
"""

from __future__ import annotations

import errno
import io
import json
import os
import pickle
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from translate.checkpoint.store import load_checkpoint, load_trainer_state, save_checkpoint
from translate.config.loading import apply_overrides, load_config
from translate.config.schema import RunConfig
from translate.data.cleaning import clean
from translate.data.readers import read_jsonl, read_tsv
from translate.data.tokenizer import Tokenizer
from translate.errors import CheckpointError, ConfigError, DataError, TrainingError
from translate.inference.translator import Translator
from translate.model import Seq2Seq
from translate.training.run_dir import lock_run

# --------------------------------------------------------------------------- corpora

CORPUS_CASES: list[tuple[str, bytes | None, str, type[Exception] | None, str]] = [
    # id, file content (None = no file), reader, expected error, message (regex) or skip summary
    ("missing file", None, "tsv", DataError, r"missing.tsv: file not found"),
    ("empty file", b"", "tsv", DataError, r"no sentence pairs found"),
    ("whitespace-only lines", b"  \n\t\n", "tsv", DataError, r"no sentence pairs found"),
    ("one column", b"ok\t\xe5\xa5\xbd\nonly one\n", "tsv", DataError, r"f.tsv:2: expected 2 tab-separated columns"),
    ("stray extra tab", b"a\tb\tc\n", "tsv", None, r"1 rows with extra columns"),
    ("GBK file", "你好\t世界\n".encode("gbk"), "tsv", DataError, r"f.tsv:1: not valid UTF-8 .*GB18030/GBK"),
    ("UTF-16 with BOM", "hi\t你好\n".encode("utf-16"), "tsv", DataError, r"UTF-16 \(byte-order mark found\)"),
    ("UTF-16 without BOM", "hello\t你好\nthanks\t谢谢\n".encode("utf-16-le"), "tsv", DataError,
     r"f.tsv: file looks like UTF-16LE without a byte-order mark .* iconv -f UTF-16LE"),
    ("UTF-16BE without BOM", "hello\t你好\n".encode("utf-16-be"), "tsv", DataError, r"looks like UTF-16BE"),
    ("CRLF endings", b"a\tb\r\nc\td\r\n", "tsv", None, r"2 rows$"),
    ("NUL byte", b"a\tb\nc\x00d\te\n", "tsv", DataError, r"f.tsv:2: NUL byte"),
    ("100,000-character line", b"x" * 100_000 + b"\ty\nshort\tok\n", "tsv", None, r"2 rows"),
    ("malformed JSONL line", b'{"en": "a", "zh": "b"}\n{"en": \n', "jsonl", DataError, r"f.tsv:2: malformed JSON"),
    ("languages missing", b'{"en": "a", "fr": "b"}\n', "jsonl", DataError, r"string fields 'en' and 'zh'"),
]


@pytest.mark.parametrize(("content", "reader", "error", "message"), [c[1:] for c in CORPUS_CASES],
                         ids=[c[0] for c in CORPUS_CASES])
def test_corpus_matrix(tmp_path: Path, content: bytes | None, reader: str, error: type[Exception] | None,
                       message: str) -> None:
    path = tmp_path / ("missing.tsv" if content is None else "f.tsv")
    if content is not None:
        path.write_bytes(content)
    read = read_tsv if reader == "tsv" else read_jsonl
    if error is not None:
        with pytest.raises(error, match=message):
            read(path)
        return
    ds, report = read(path)
    assert len(ds) >= 1
    import re

    assert re.search(message, report.summary()), report.summary()


def test_swapped_columns_are_refused_with_the_fix(tmp_path: Path) -> None:
    from translate.config.schema import DataConfig
    from translate.data.corpus import read_clean

    (tmp_path / "train.tsv").write_text("我喜欢茶。\tI like tea.\n你好。\tHello.\n谢谢！\tThank you!\n", encoding="utf-8")
    cfg = DataConfig(data_dir=str(tmp_path))
    with pytest.raises(DataError, match=r"train.tsv: the columns look swapped: the English column is \d+% Han .*"
                                        r"data.check_columns=false"):
        read_clean(cfg, "train", [])
    ds = read_clean(DataConfig(data_dir=str(tmp_path), check_columns=False), "train", [])
    assert len(ds) == 3  # the flag accepts it


def test_overlong_training_rows_are_counted_not_silent(tmp_path: Path) -> None:
    path = tmp_path / "f.tsv"
    path.write_bytes(b"x" * 100_000 + b"\ty\nshort\tok\n")
    ds, _ = read_tsv(path)
    cleaned, report = clean(ds, max_chars=300, max_ratio=9.0, filter_training=True)
    assert len(cleaned) == 1 and report.dropped["over-long"] == 1 and "1 over-long" in report.summary()


# --------------------------------------------------------------------------- sentences to translate

SENTENCE_CASES = [
    ("empty string", ""),
    ("whitespace only", " \t\u3000 "),
    ("5,000 words", "the cat sat on the mat " * 834),
    ("emoji and unseen scripts", "🙂🚀 Привет مرحبا שלום ᚠᚢᚦ"),
    ("control characters", "I\x07 like\x1b tea\x00."),
    ("mixed English and Chinese", "I like 喝茶 and 咖啡."),
    ("only punctuation", "?!...,,;"),
]


@pytest.fixture
def tiny_translator(tiny_model: Seq2Seq, tiny_tokenizers: tuple[Tokenizer, Tokenizer], tiny_config: RunConfig) -> Translator:
    src, tgt = tiny_tokenizers
    return Translator(tiny_model, src, tgt, tiny_config.decode)


@pytest.mark.parametrize("text", [c[1] for c in SENTENCE_CASES], ids=[c[0] for c in SENTENCE_CASES])
def test_sentence_matrix(tiny_translator: Translator, text: str, caplog: pytest.LogCaptureFixture) -> None:
    began = time.monotonic()
    [out] = tiny_translator.translate([text])
    assert isinstance(out, str)
    assert time.monotonic() - began < 30  # bounded: long inputs are truncated
    if not text.strip():
        assert out == ""
    if len(text) > 10_000:
        assert "truncated" in caplog.text


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.text(max_size=60))
def test_any_unicode_gives_a_string(tiny_translator: Translator, text: str) -> None:
    [out] = tiny_translator.translate([text])
    assert isinstance(out, str)


# --------------------------------------------------------------------------- configuration

CONFIG_CASES: list[tuple[str, dict[str, Any], str]] = [
    ("unknown key suggests the nearest", {"train.batch_szie": 3}, r"unknown config key 'train.batch_szie'; valid keys"),
    ("unknown key, close match", {"decode.beam": 3}, r"did you mean 'decode.beam_size'"),
    ("wrong type", {"model.hidden_size": "big"}, r"model.hidden_size='big' is invalid: expected a number"),
    ("negative learning rate", {"train.learning_rate": -0.1}, r"train.learning_rate=-0.1 is invalid: must be > 0"),
    ("zero vocabulary", {"tokenizer.en_vocab_size": 0}, r"tokenizer.en_vocab_size=0 is invalid"),
    ("heads not dividing hidden", {"model.attention.kind": "multihead", "model.attention.multihead.heads": 7},
     r"model.attention.multihead.heads=7 is invalid: must divide model.hidden_size \(256\)"),
    ("beam 0", {"decode.beam_size": 0}, r"decode.beam_size=0 is invalid: must be >= 1"),
    ("unknown attention name", {"model.attention.kind": "luong"}, r"choose one of hard, multihead, none, soft"),
]


@pytest.mark.parametrize(("overrides", "message"), [c[1:] for c in CONFIG_CASES], ids=[c[0] for c in CONFIG_CASES])
def test_config_matrix(overrides: dict[str, Any], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        load_config(None, overrides)


def test_data_direction_must_match_the_checkpoint(tmp_path: Path, tiny_config: RunConfig, tiny_model: Seq2Seq,
                                                  tiny_tokenizers: tuple[Tokenizer, Tokenizer]) -> None:
    from translate.evaluation.evaluate import evaluate_checkpoint

    save_checkpoint(tmp_path / "ckpt", tiny_config.artifact(), tiny_model, *tiny_tokenizers, {"step": 1})
    with pytest.raises(ConfigError, match="the checkpoint translates en-zh, but zh-en was asked for"):
        evaluate_checkpoint(tmp_path / "ckpt", "dev", direction="zh-en")


# --------------------------------------------------------------------------- checkpoints

def _saved(tmp_path: Path, cfg: RunConfig, model: Seq2Seq, toks: tuple[Tokenizer, Tokenizer]) -> Path:
    path = tmp_path / "ckpt"
    save_checkpoint(path, cfg.artifact(), model, *toks, {"step": 1}, trainer_state={"step": torch.tensor(1)})
    return path


def _truncate(p: Path) -> None:
    data = (p / "model.safetensors").read_bytes()
    (p / "model.safetensors").write_bytes(data[: len(data) // 2])


def _random_bytes(p: Path) -> None:
    (p / "model.safetensors").write_bytes(os.urandom(4096))


def _other_architecture(p: Path) -> None:
    text = (p / "config.json").read_text().replace('"hidden_size": 16', '"hidden_size": 32').replace(
        '"embedding_size": 16', '"embedding_size": 32')
    (p / "config.json").write_text(text)


def _old_format(p: Path) -> None:
    (p / "meta.json").write_text('{"format_version": 0, "step": 1}')


def _no_tokenizer(p: Path) -> None:
    (p / "tgt.spm.model").unlink()


def _huge_sizes(p: Path) -> None:
    text = (p / "config.json").read_text().replace('"hidden_size": 16', '"hidden_size": 16000').replace(
        '"embedding_size": 16', '"embedding_size": 16000')
    (p / "config.json").write_text(text)


def _absurd_sizes(p: Path) -> None:
    (p / "config.json").write_text((p / "config.json").read_text().replace('"hidden_size": 16', '"hidden_size": 10' + '0' * 11))


def _lying_header(p: Path) -> None:
    """Rewrite the safetensors header so one tensor claims bytes far beyond the end of the file."""
    raw = (p / "model.safetensors").read_bytes()
    length = int.from_bytes(raw[:8], "little")
    header = json.loads(raw[8:8 + length])
    name = next(k for k in header if k != "__metadata__")
    header[name]["data_offsets"][1] += 10**12
    new = json.dumps(header).encode()
    new += b" " * (length - len(new)) if len(new) <= length else b""
    (p / "model.safetensors").write_bytes(len(new).to_bytes(8, "little") + new + raw[8 + length:])


def _string_size(p: Path) -> None:
    text = (p / "config.json").read_text().replace('"hidden_size": 16', '"hidden_size": "/etc/passwd"')
    (p / "config.json").write_text(text)


def _machine_settings(p: Path) -> None:
    config = json.loads((p / "config.json").read_text())
    config["data"] = {"data_dir": "/", "cache_dir": "/tmp/should-not-be-used"}
    (p / "config.json").write_text(json.dumps(config))


CHECKPOINT_CASES: list[tuple[str, Callable[[Path], None] | None, str]] = [
    ("missing", None, r"checkpoint not found"),
    ("truncated weights", _truncate, r"truncated or not a safetensors file"),
    ("random bytes", _random_bytes, r"truncated or not a safetensors file"),
    ("another architecture", _other_architecture, r"do not fit the configured architecture|another architecture"),
    ("older format version", _old_format, r"checkpoint format version 0, this translate .* reads versions 1, 2"),
    ("huge sizes in config.json", _huge_sizes, r"weights do not fit the configured architecture: .* has shape"),
    ("absurd sizes in config.json", _absurd_sizes, r"unreadable config .*model.hidden_size=1000000000000 is invalid"),
    ("tensor past the end of the file", _lying_header, r"claims bytes"),
    ("a path where a size belongs", _string_size, r"unreadable config .*expected a number"),
    ("settings of a training machine", _machine_settings, r"unknown config key 'data'"),
    ("tokenizer model missing", _no_tokenizer, r"tokenizer model missing: .*tgt.spm.model"),
]


@pytest.mark.parametrize(("damage", "message"), [c[1:] for c in CHECKPOINT_CASES], ids=[c[0] for c in CHECKPOINT_CASES])
def test_checkpoint_matrix(tmp_path: Path, tiny_config: RunConfig, tiny_model: Seq2Seq,
                           tiny_tokenizers: tuple[Tokenizer, Tokenizer], damage: Callable[[Path], None] | None,
                           message: str, monkeypatch: pytest.MonkeyPatch) -> None:
    path = _saved(tmp_path, tiny_config, tiny_model, tiny_tokenizers) if damage else tmp_path / "nothing"
    if damage:
        damage(path)
    import translate.checkpoint.store as ckpt

    def no_building(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("the model was built before the checkpoint was checked")

    monkeypatch.setattr(ckpt, "build_model", no_building)  # every rejection happens before allocation
    with pytest.raises(CheckpointError, match=message):
        load_checkpoint(path)


class _Payload:
    def __reduce__(self) -> tuple[Any, ...]:
        return (os.system, (f"touch {MARKER}",))


MARKER = Path("/tmp/translate-pickle-payload-ran")


@pytest.mark.filterwarnings("ignore:Detected pickle protocol")  # the crafted payload uses protocol 4: expected
def test_pickle_payload_is_refused_without_running(tmp_path: Path, tiny_config: RunConfig, tiny_model: Seq2Seq,
                                                    tiny_tokenizers: tuple[Tokenizer, Tokenizer]) -> None:
    MARKER.unlink(missing_ok=True)
    path = _saved(tmp_path, tiny_config, tiny_model, tiny_tokenizers)
    buffer = io.BytesIO()
    torch.save({"state": _Payload()}, buffer, pickle_protocol=pickle.DEFAULT_PROTOCOL)
    (path / "trainer.pt").write_bytes(buffer.getvalue())
    with pytest.raises(CheckpointError, match="refused to load"):
        load_trainer_state(path)
    assert not MARKER.exists()


# --------------------------------------------------------------------------- training faults

def _train(cfg: RunConfig, resume: bool = False) -> Any:
    from translate.training.train import train

    return train(cfg, resume=resume)


def _interrupted_in_update(cfg: RunConfig, monkeypatch: pytest.MonkeyPatch, step: int) -> None:
    """Train `cfg` until a KeyboardInterrupt inside the update after `step` (as a second stop signal)."""
    from translate.training import train as train_module

    original = train_module.Trainer.train_step

    def interrupt(self: Any, batch: Any) -> Any:
        if self.state.step == step:
            raise KeyboardInterrupt
        return original(self, batch)

    monkeypatch.setattr(train_module.Trainer, "train_step", interrupt)
    with pytest.raises(KeyboardInterrupt):
        _train(cfg)
    monkeypatch.setattr(train_module.Trainer, "train_step", original)


def test_an_interrupt_inside_an_update_writes_no_checkpoint(tiny_config: RunConfig,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """A KeyboardInterrupt inside an update (a second signal does not wait for it): the forward pass and
    the optimizer may have changed some state, so last/ stays the last validation's checkpoint and the
    log says so; the run resumes from it to the end."""
    _interrupted_in_update(tiny_config, monkeypatch, 27)
    assert load_checkpoint(tiny_config.run_dir / "last").meta["step"] == tiny_config.train.validate_every == 20
    assert ("interrupted during the update after step 27 (a second stop signal): no checkpoint written, resume "
            "from the last checkpoint") in (tiny_config.run_dir / "train.log").read_text()
    result = _train(tiny_config, resume=True)
    assert result.state.step == tiny_config.train.max_steps


def test_a_resume_records_each_step_once_in_metrics_jsonl(tiny_config: RunConfig,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """A run that dies after logging step 30 with last/ at step 20 trains steps 21-30 again on resume:
    metrics.jsonl then holds step 30's progress record once (the retrained one), not twice."""
    _interrupted_in_update(tiny_config, monkeypatch, 35)
    metrics = tiny_config.run_dir / "metrics.jsonl"
    before = [json.loads(line) for line in metrics.read_text().splitlines()]
    assert [r["step"] for r in before if r["kind"] == "train"] == [10, 20, 30]
    _train(tiny_config, resume=True)
    records = [json.loads(line) for line in metrics.read_text().splitlines()]
    assert [r["step"] for r in records if r["kind"] == "train"] == [10, 20, 30, 40]
    assert records[:len(before) - 1] == before[:-1] and [r["kind"] for r in records].count("resume") == 1
    assert "1 metrics.jsonl records of later steps dropped" in (tiny_config.run_dir / "train.log").read_text()


def test_a_resume_hides_the_retrained_steps_from_tensorboard(tiny_config: RunConfig,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """The same crash with train.tensorboard=true: TensorBoard's reader shows each step's loss once, the
    value of the run that reached step 40, not the dead process's step 30 beside it."""
    accumulator = pytest.importorskip("tensorboard.backend.event_processing.event_accumulator")
    cfg = apply_overrides(tiny_config, {"train.tensorboard": True})
    _interrupted_in_update(cfg, monkeypatch, 35)
    _train(cfg, resume=True)
    events = accumulator.EventAccumulator(str(cfg.run_dir / "tensorboard"))
    events.Reload()
    scalars = events.Scalars("train/loss")
    assert [event.step for event in scalars] == [10, 20, 30, 40]
    losses = {event.step: event.value for event in scalars}
    records = [json.loads(line) for line in (cfg.run_dir / "metrics.jsonl").read_text().splitlines()]
    assert losses == pytest.approx({r["step"]: r["loss"] for r in records if r["kind"] == "train"})


def test_two_stop_signals_inside_an_update_resume_as_the_same_run(tiny_config: RunConfig,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """SIGTERM twice during an update (a process pool that breaks sends one, the study driver another):
    the second one interrupts the update; the run resumes from its last validation's checkpoint and ends
    with the weights and optimizer moments of a run never interrupted, bit for bit."""
    straight, resumed, stopped_at = _signalled_in_update(tiny_config, monkeypatch, 14, ["SIGTERM", "SIGTERM"])
    assert stopped_at == 10 and _same_weights(straight, resumed)
    moments = [load_trainer_state(run.run_dir / "last")["optimizer"]["state"] for run in (straight, resumed)]
    assert moments[0].keys() == moments[1].keys()
    assert all(torch.equal(moments[0][i][k], moments[1][i][k]) for i in moments[0] for k in ("exp_avg", "exp_avg_sq"))


def test_a_run_that_died_before_its_first_last_checkpoint_trains_again(tiny_config: RunConfig) -> None:
    """A process killed between the first best/ and the first last/ save leaves no training state: the
    study's run function trains it again from the start (a fresh `train` would refuse the folder), to the
    weights of a run never interrupted."""
    import shutil

    from translate.training.train import resumable, train_or_resume

    straight = _train(apply_overrides(tiny_config, {"name": "straight"}))
    died = apply_overrides(tiny_config, {"name": "died"})
    _train(apply_overrides(died, {"train.max_steps": tiny_config.train.validate_every}))
    shutil.rmtree(died.run_dir / "last")
    assert (died.run_dir / "best").is_dir() and not resumable(died.run_dir)
    with pytest.raises(TrainingError, match="already holds a trained run"):
        _train(died)
    result = train_or_resume(died)
    assert result.state.step == tiny_config.train.max_steps
    assert _same_weights(straight, result)


def test_sigterm_saves_a_resumable_checkpoint(tiny_config: RunConfig, monkeypatch: pytest.MonkeyPatch) -> None:
    """A real SIGTERM to this process mid-run (what `kill` or a scheduler sends): the run stops at the
    step it was on with last/ written, and the handler is removed afterwards."""
    import os
    import signal

    from translate.training import train as train_module

    original = train_module.Trainer.train_step

    def terminated_at_5(self: Any, batch: Any) -> Any:
        if self.state.step == 5:
            os.kill(os.getpid(), signal.SIGTERM)
        return original(self, batch)

    before = signal.getsignal(signal.SIGTERM)
    monkeypatch.setattr(train_module.Trainer, "train_step", terminated_at_5)
    with pytest.raises(KeyboardInterrupt, match="SIGTERM"):
        _train(tiny_config)
    assert signal.getsignal(signal.SIGTERM) == before
    monkeypatch.setattr(train_module.Trainer, "train_step", original)
    meta = load_checkpoint(tiny_config.run_dir / "last").meta
    assert meta["interrupted"] and meta["step"] == 6  # the update under way when the signal came is completed
    assert "resume with: translate train --resume" in (tiny_config.run_dir / "train.log").read_text()
    assert _train(tiny_config, resume=True).state.step == tiny_config.train.max_steps


@pytest.mark.parametrize("signum", ["SIGTERM", "SIGINT"])
def test_a_stop_signal_halfway_through_an_update_resumes_as_the_same_run(
        tiny_config: RunConfig, monkeypatch: pytest.MonkeyPatch, signum: str) -> None:
    """The signal comes after the forward pass took its dropout draws and before the optimizer step: the
    run stops after that update, and resuming gives the weights of a run never interrupted, bit for bit."""
    straight, resumed, stopped_at = _signalled_in_update(tiny_config, monkeypatch, 8, [signum])
    assert stopped_at == 8 and _same_weights(straight, resumed)


def _signalled_in_update(tiny_config: RunConfig, monkeypatch: pytest.MonkeyPatch, update: int,
                         signums: list[str]) -> tuple[Any, Any, int]:
    """A run with dropout, and the same run sent `signums` in update `update` (after the forward pass took its
    dropout draws, before the optimizer step), then resumed to the end: (the run never interrupted, the
    resumed one, the step of the last/ checkpoint the interrupted one left)."""
    import os
    import signal

    from translate.training import trainer as trainer_module

    cfg = apply_overrides(tiny_config, {"model.dropout": 0.2, "train.validate_every": 10, "train.max_steps": 20,
                                        "train.average_last": 0})
    straight = _train(apply_overrides(cfg, {"name": "straight"}))
    original, calls = trainer_module.compute_loss, []

    def signalled(*args: Any, **kwargs: Any) -> Any:
        out = original(*args, **kwargs)
        calls.append(1)
        if len(calls) == update:
            for signum in signums:
                os.kill(os.getpid(), getattr(signal, signum))
        return out

    interrupted = apply_overrides(cfg, {"name": "interrupted"})
    monkeypatch.setattr(trainer_module, "compute_loss", signalled)
    # Ctrl-C as in a terminal: a suite run as a script's background job starts with SIGINT ignored, and
    # training leaves an ignored signal ignored (test_a_signal_ignored_at_start_stays_ignored)
    before = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        with pytest.raises(KeyboardInterrupt, match=signums[-1]):
            _train(interrupted)
    finally:
        signal.signal(signal.SIGINT, before)
    monkeypatch.setattr(trainer_module, "compute_loss", original)
    stopped_at = int(load_checkpoint(interrupted.run_dir / "last").meta["step"])
    return straight, _train(interrupted, resume=True), stopped_at


def _same_weights(a: Any, b: Any) -> bool:
    """Two runs' last/ weights, bit for bit."""
    from safetensors.torch import load_file

    first, second = (load_file(str(run.run_dir / "last" / "model.safetensors")) for run in (a, b))
    return first.keys() == second.keys() and all(torch.equal(first[k], second[k]) for k in first)


def test_a_signal_ignored_at_start_stays_ignored() -> None:
    """A background job of a script starts with SIGINT ignored: training keeps it so (Ctrl-C in the terminal
    that started the script is not for it), handles SIGTERM, and leaves both as they were."""
    import signal

    from translate.training.signals import stop_signals

    before = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        term = signal.getsignal(signal.SIGTERM)
        with stop_signals() as signals:
            assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN
            assert signal.getsignal(signal.SIGTERM) == signals.handle
        assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN and signal.getsignal(signal.SIGTERM) == term
    finally:
        signal.signal(signal.SIGINT, before)


def test_a_second_stop_signal_does_not_wait_for_the_update() -> None:
    import signal

    from translate.training.signals import StopSignals

    signals = StopSignals()
    with pytest.raises(KeyboardInterrupt, match="SIGINT"):  # outside the training loop: at once
        signals.handle(signal.SIGINT, None)
    with signals.held():
        signals.handle(signal.SIGTERM, None)
        assert signals.received == "SIGTERM"
        with pytest.raises(KeyboardInterrupt, match="SIGINT"):
            signals.handle(signal.SIGINT, None)


def test_crash_mid_save_keeps_the_previous_checkpoint(tmp_path: Path, tiny_config: RunConfig, tiny_model: Seq2Seq,
                                                      tiny_tokenizers: tuple[Tokenizer, Tokenizer],
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    path = _saved(tmp_path, tiny_config, tiny_model, tiny_tokenizers)
    import translate.checkpoint.store as ckpt

    def killed(*args: Any, **kwargs: Any) -> None:
        raise SystemExit("killed")  # the process dies while writing the new weights

    monkeypatch.setattr(ckpt, "save_model", killed)
    with pytest.raises(SystemExit):
        save_checkpoint(path, tiny_config.artifact(), tiny_model, *tiny_tokenizers, {"step": 2})
    assert load_checkpoint(path).meta["step"] == 1
    # killed between the two renames: last -> last.old done, tmp -> last not yet
    path.rename(path.with_name("ckpt.old"))
    assert load_checkpoint(tmp_path / "ckpt").meta["step"] == 1


def test_full_disk_is_a_clear_error_and_keeps_the_previous(tmp_path: Path, tiny_config: RunConfig,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    cfg = apply_overrides(tiny_config, {"train.max_steps": 40, "train.validate_every": 20})
    import translate.checkpoint.store as ckpt

    original = ckpt.save_model
    calls = {"n": 0}

    def fill_disk(model: Any, filename: str, *args: Any, **kwargs: Any) -> None:
        if Path(filename).parent.name == "last.tmp" and calls["n"] >= 1:
            raise OSError(errno.ENOSPC, "No space left on device", filename)
        calls["n"] += Path(filename).parent.name == "last.tmp"
        original(model, filename, *args, **kwargs)

    monkeypatch.setattr(ckpt, "save_model", fill_disk)
    with pytest.raises(CheckpointError, match="disk full; the previous checkpoint is kept"):
        _train(cfg)
    assert load_checkpoint(cfg.run_dir / "last").meta["step"] == 20


def test_nan_losses_are_skipped_then_stop_training(tiny_config: RunConfig, monkeypatch: pytest.MonkeyPatch) -> None:
    from translate.training import trainer as train_module

    original = train_module.compute_loss
    state = {"calls": 0}

    def sometimes_nan(model: Any, batch: Any, smoothing: float, forward: Any = None) -> Any:
        out = original(model, batch, smoothing, forward)
        state["calls"] += 1
        if state["calls"] in (3, 4) or state["calls"] > 25:
            out.loss = out.loss * float("nan")
        return out

    monkeypatch.setattr(train_module, "compute_loss", sometimes_nan)
    cfg = apply_overrides(tiny_config, {"train.max_bad_losses": 5, "train.validate_every": 10, "train.max_steps": 100})
    with pytest.raises(TrainingError, match="loss was NaN/inf for 5 batches in a row"):
        _train(cfg)
    best = load_checkpoint(cfg.run_dir / "best")
    assert all(torch.isfinite(p).all() for p in best.model.parameters())


def test_second_training_on_the_same_run_folder_is_refused(tiny_config: RunConfig) -> None:
    with lock_run(tiny_config.run_dir), pytest.raises(TrainingError, match="in use by another training"):
        _train(tiny_config)


@pytest.mark.parametrize("damage", ["truncate", "empty"])
def test_a_damaged_cache_is_rebuilt_with_a_notice(tmp_path: Path, tiny_config: RunConfig, damage: str,
                                                  caplog: pytest.LogCaptureFixture) -> None:
    from translate.data.corpus import prepare_data

    first = prepare_data(tiny_config.data, tiny_config.tokenizer)
    expected, proto, rows = list(first.train.ids["src_ids"]), first.src_tokenizer.proto, first.train.ids.num_rows
    del first  # its Arrow tables are memory-mapped from the files damaged below
    cache = Path(tiny_config.data.cache_dir)
    entries = sorted(cache.glob("*.arrow")) + sorted(cache.glob("spm-*.model"))
    assert len(entries) >= 5  # cleaned train and dev, two tokenizers, token ids
    for entry in entries:
        entry.write_bytes(entry.read_bytes()[:entry.stat().st_size // 2] if damage == "truncate" else b"")
    with caplog.at_level("WARNING"):
        again = prepare_data(tiny_config.data, tiny_config.tokenizer)
    notices = [r.getMessage() for r in caplog.records if "cannot be used" in r.getMessage()]
    assert len(notices) >= len(entries) - 1 and all("rebuilding it" in n for n in notices)
    assert again.src_tokenizer.proto == proto and list(again.train.ids["src_ids"]) == expected
    assert prepare_data(tiny_config.data, tiny_config.tokenizer).train.ids.num_rows == rows


def test_a_cache_entry_without_its_recorded_size_is_rebuilt_naming_why(tiny_config: RunConfig,
                                                                      caplog: pytest.LogCaptureFixture) -> None:
    from translate.data.corpus import prepare_data

    first = prepare_data(tiny_config.data, tiny_config.tokenizer)
    expected = list(first.train.ids["src_ids"])
    del first
    seals = sorted(Path(tiny_config.data.cache_dir).glob("*.arrow.size"))
    assert seals  # every Arrow entry is sealed
    for seal in seals:
        seal.unlink()  # as an entry of a version that did not seal them reads
    with caplog.at_level("WARNING"):
        again = prepare_data(tiny_config.data, tiny_config.tokenizer)
    notices = [r.getMessage() for r in caplog.records if "cannot be used" in r.getMessage()]
    assert len(notices) == len(seals)
    assert all("no size recorded: written by an older version of translate, or cut short" in n for n in notices)
    assert list(again.train.ids["src_ids"]) == expected
    assert sorted(Path(tiny_config.data.cache_dir).glob("*.arrow.size")) == seals  # sealed again


def test_a_cache_entry_appears_only_after_its_whole_seal(tiny_config: RunConfig, monkeypatch: pytest.MonkeyPatch) -> None:
    """Two study workers on a cold cache: one may find an entry the instant another renames it into place.
    Its seal must already be there, whole, or the finder calls the entry damaged and removes it under
    the writer (which then fails with FileNotFoundError)."""
    import os

    from translate.data import cache as cache_module
    from translate.data.corpus import prepare_data

    replace, seen = os.replace, []

    def finder_looks(src: Any, dst: Any) -> None:
        replace(src, dst)
        if str(dst).endswith(".arrow"):  # at the moment the entry appears, another process reads it
            seen.append(Path(dst).name)
            assert cache_module.read_arrow(Path(dst)) is not None
    monkeypatch.setattr(cache_module.os, "replace", finder_looks)
    prepare_data(tiny_config.data, tiny_config.tokenizer)
    assert len(seen) >= 3  # cleaned train and dev, token ids


def test_a_vocabulary_sentencepiece_refuses_is_one_line_naming_a_size_that_works(tmp_path: Path, tiny_config: RunConfig) -> None:
    from typer.testing import CliRunner

    from translate.cli.app import app
    from translate.data.corpus import prepare_data

    small = apply_overrides(tiny_config, {"tokenizer.zh_vocab_size": 50})
    with pytest.raises(ConfigError, match=r"tokenizer.zh_vocab_size=50 is too small for the zh training text: .* "
                                          r"set --set tokenizer.zh_vocab_size=(\d+) or more") as refused:
        prepare_data(small.data, small.tokenizer)
    works = int(str(refused.value).split("zh_vocab_size=")[2].split()[0])
    assert prepare_data(small.data, apply_overrides(small.tokenizer, {"zh_vocab_size": works})).tgt_tokenizer
    from tests.cli.test_cli import sets

    result = CliRunner().invoke(app, ["prepare", *sets(tmp_path, **{"tokenizer.zh_vocab_size": 50})])
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert result.output.strip().splitlines()[-1].startswith("error: tokenizer.zh_vocab_size=50 is too small")
