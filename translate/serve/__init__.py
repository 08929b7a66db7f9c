"""`translate serve`: an HTTP API (FastAPI) and a web page over loaded translators.

settings (every limit) < limits (token bucket, body size, API key) < batcher (micro-batching in one
worker thread) < models (named translators, direction choice, the work of one batch) < app (routes,
errors, the page in static/).
"""
