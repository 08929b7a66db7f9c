"""The torch-free engine: NumPy inference for the models it supports (`model.unsupported` says
which not), so that `translate text` answers without importing PyTorch."""

from translate.inference.lite.model import unsupported
from translate.inference.lite.translator import LiteTranslator

__all__ = ["LiteTranslator", "unsupported"]
