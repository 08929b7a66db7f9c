"""The package version (one place; read by the CLI and written into checkpoints)."""

__version__ = "0.1.0"
