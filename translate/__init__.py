"""translate: English<->Chinese RNN attention NMT with pluggable attention mechanisms.

    import translate
    translator = translate.load("zh-en")       # a released model, a run or checkpoint folder, or None
    translator.translate("我喜欢茶。")          # 'I like tea.'

(`translate.api`; the PyTorch engine itself is `translate.inference.translator.Translator`.)
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from translate.version import __version__

if TYPE_CHECKING:
    from translate.api import Candidate, Translator, load
    from translate.config.schema import RunConfig

__all__ = ["Candidate", "RunConfig", "Translator", "__version__", "load"]


def __getattr__(name: str) -> Any:  # lazy re-exports keep `import translate` light
    if name in ("load", "Translator", "Candidate"):
        from translate import api

        return getattr(api, name)
    if name == "RunConfig":
        from translate.config.schema import RunConfig

        return RunConfig
    raise AttributeError(name)
