"""The files and tensor names of the fast path's graphs (shared by the export and the runtime)."""

ENCODER, STEP, GRAPHS_JSON = "encoder.onnx", "step.onnx", "graphs.json"
GRAPH_FORMAT = 3  # bump when the graphs' inputs, outputs or export change: cached graphs are then derived again
# (layers, N, H), (layers, N, H) (zeros for a GRU), (N, H), (N, S) attention received so far,
# (N, S, d) the attention's coverage vector (zeros (N, S, 1) without coverage)
STATE = ("hidden", "cell", "feed", "attended", "coverage")
MEMORY = ("keys", "values", "mask")  # (N, S, D) or (N, heads, S, d); mask (N, S) True on tokens
COPY_IDS = "copy_ids"  # (N, S) int64, after MEMORY in copy attention's graphs: the id each source position copies to
SHIPPED = "onnx"  # a released model's graphs, in this folder of its checkpoint
