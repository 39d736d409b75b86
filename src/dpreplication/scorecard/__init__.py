"""The scorecard: every claim of a paper, recomputed by the pipeline and judged.

A claim registry (``workflow/claims/<paper>.yaml``) names, for each claim, the
paper's value, a tolerance, a comparison, and *how it is computed*: the table
(a CSV written by some rule), the row (``select``) and the ``column`` whose
value is the reproduction. Nothing here stores a reproduced number.
"""

from dpreplication.scorecard.claims import (
    COLUMNS,
    Claim,
    evaluate_claims,
    load_registry,
    render_markdown,
)

__all__ = ["COLUMNS", "Claim", "evaluate_claims", "load_registry", "render_markdown"]
