"""The fast path: the model's encoder and decoder step exported to ONNX (derived from the PyTorch
model, never written by hand) and run by ONNX Runtime with a NumPy search, so that `translate text`
answers without importing PyTorch."""

from translate.inference.fast.translator import FastEngine, FastTranslator

__all__ = ["FastEngine", "FastTranslator"]
