"""The data flow from files to batches: readers -> cleaning -> tokenizer -> batching (see corpus.prepare_data)."""
