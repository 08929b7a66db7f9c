"""Releasing a model: a run's checkpoint as a small fp16 copy with its graphs, scores and model card."""
