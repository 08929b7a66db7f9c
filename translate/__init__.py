"""translate: English<->Chinese RNN attention NMT with pluggable attention mechanisms."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from translate.version import __version__

if TYPE_CHECKING:
    from translate.config.schema import RunConfig
    from translate.inference.translator import Translator

__all__ = ["RunConfig", "Translator", "__version__"]


def __getattr__(name: str) -> Any:  # lazy re-exports keep `import translate` light
    if name == "Translator":
        from translate.inference.translator import Translator

        return Translator
    if name == "RunConfig":
        from translate.config.schema import RunConfig

        return RunConfig
    raise AttributeError(name)
