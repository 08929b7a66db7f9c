"""Special token ids shared by the data pipeline, the model and the search.

Every SentencePiece model trained here reserves these ids (`translate.data.tokenizer`); the model
masks `PAD_ID`, searches start at `BOS_ID` and stop at `EOS_ID`.
"""

PAD_ID, UNK_ID, BOS_ID, EOS_ID = 0, 1, 2, 3
SPECIAL_IDS = (PAD_ID, BOS_ID, EOS_ID)
