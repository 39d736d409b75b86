"""The vocabulary the replications' tables and the scorecard share: column names and their values."""

DATA_STATUS_COLUMN = "data_status"
"""Optional table column: empty when the row was computed, else why not (e.g. a missing dataset
or library); a claim reading such a row is ``missing`` with this text as its reason."""

NEEDS_DOWNLOAD = "needs download"
"""How a ``data_status`` starts when the row's dataset is not available (it then names the
dataset and how to get it)."""
