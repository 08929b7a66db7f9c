"""Errors the library raises for user mistakes; the CLI prints them as one line and exits 1."""

from __future__ import annotations


class TranslateError(Exception):
    """Base class: the message says what is wrong, where, and how to fix it."""


class ConfigError(TranslateError):
    """A configuration key, value or combination is invalid."""


class DataError(TranslateError):
    """A corpus file is missing, unreadable or malformed (message names file and line)."""


class CheckpointError(TranslateError):
    """A checkpoint is missing, corrupt, of another format, or unsafe to load."""


class TrainingError(TranslateError):
    """Training cannot go on (diverged, run folder locked, disk full)."""
