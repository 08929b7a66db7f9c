"""The files and tensor names of the fast path's graphs (shared by the export and the runtime)."""

ENCODER, STEP, GRAPHS_JSON = "encoder.onnx", "step.onnx", "graphs.json"
GRAPH_FORMAT = 4  # bump when the graphs' inputs, outputs or export change: cached graphs are then derived again
# the decoder state every graph has: (layers, N, H), (layers, N, H) (zeros for a GRU), (N, H), (N, S) attention
# received so far; the decoder features' state follows by name, as graphs.json lists it ("state")
BASE_STATE = ("hidden", "cell", "feed", "attended")
LAYERED = frozenset({"hidden", "cell"})  # state whose rows are its second axis
# (N, S, D) or (N, heads, S, d); mask (N, S) True on tokens; the features' values fixed per sentence follow by
# name, as graphs.json lists them ("memory")
MEMORY = ("keys", "values", "mask")
SHIPPED = "onnx"  # a released model's graphs, in this folder of its checkpoint
