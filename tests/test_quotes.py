"""Every ``paper`` claim quotes its paper (issue #52 item 3): the quote is found in the paper's text.

The paper copies are the shared ones (``../shared/papers`` beside the checkout, or beside the data
mirror that ``.ci/run`` sets). Text is compared as letters and digits only, Greek letters and LaTeX
commands by name, so a PDF's extraction artefacts ("closeto-random", ``$\\varepsilon$``, "10^{-3}")
match the quote ("close-to-random", "ε", "10⁻³"); a quote elided with "…" must match part by part.
A claim whose only source is the spec is kind ``spec``, not ``paper``.
"""

import os
import re
import unicodedata
from pathlib import Path

import pytest

from dpreplication.scorecard import load_registry

REPO = Path(__file__).resolve().parents[1]
CLAIMS = REPO / "workflow" / "claims"
COPIES = {
    "darrm": "darrm-private-majority-ensembling.garbled.json",
    "permute_and_flip": "permute-and-flip-equals-rnm-exponential.md",
    "privgene": "privgene-model-fitting-genetic.md",
    "truncated_laplace": "truncated-laplacian-approximate-dp.txt",
}
GREEK = {
    "α": "alpha",
    "β": "beta",
    "γ": "gamma",
    "δ": "delta",
    "Δ": "delta",
    "ε": "epsilon",
    "ϵ": "epsilon",
    "λ": "lambda",
    "μ": "mu",
    "π": "pi",
    "σ": "sigma",
    "τ": "tau",
    "θ": "theta",
    "ω": "omega",
    "Ω": "omega",
}


def paper_copies() -> Path | None:
    """The folder of the shared paper copies, or None where this machine has none."""
    mirror = os.environ.get("DPREPLICATION_DATA_MIRROR")
    for folder in (REPO.parent / "shared" / "papers", Path(mirror).parent / "papers" if mirror else None):
        if folder is not None and all((folder / name).is_file() for name in COPIES.values()):
            return folder
    return None


def letters(text: str) -> str:
    """Lower-case letters and digits only; Greek letters and LaTeX commands by name, others dropped."""
    text = re.sub(r"\\(var)?(epsilon|delta|gamma|lambda|sigma|tau|alpha|beta|mu|pi|theta|omega)", r"\2", text)
    text = re.sub(r"\\[A-Za-z]+", " ", text)
    text = unicodedata.normalize("NFKC", "".join(GREEK.get(c, c) for c in text)).lower()
    return re.sub(r"[^a-z0-9]+", "", text)


def unquoted(claims, paper_text: str) -> list[str]:
    """The ids of ``paper`` claims whose quote (every part between "…") is not in ``paper_text``."""
    text = letters(paper_text)
    return [
        claim.id
        for claim in claims
        if claim.kind == "paper"
        and not (
            claim.quote and all(letters(part) in text for part in re.split(r"…|\.\.\.", claim.quote) if letters(part))
        )
    ]


@pytest.mark.parametrize("paper", sorted(COPIES))
def test_every_paper_claim_quotes_a_sentence_of_its_paper(paper):
    folder = paper_copies()
    if folder is None:
        pytest.skip("no copy of the papers on this machine (../shared/papers, or beside the data mirror)")
    text = (folder / COPIES[paper]).read_text(errors="replace")
    assert unquoted(load_registry(CLAIMS / f"{paper}.yaml"), text) == []


@pytest.mark.parametrize("paper", sorted(COPIES))
def test_a_claim_that_quotes_the_spec_is_a_spec_claim(paper):
    spec_quoted = [
        c.id for c in load_registry(CLAIMS / f"{paper}.yaml") if c.kind == "paper" and c.quote.startswith("spec")
    ]
    assert spec_quoted == []


def test_extraction_artefacts_match_and_a_changed_word_does_not():
    text = r"PrivGene and PrivateERM are highly competitive, whereas GUPT and PrivateSVM report closeto-random class labels. we set  $c = 1.25 \times 10^{-3}$  and $\varepsilon$ -differential privacy"
    claims = [
        load_claim("close", "whereas GUPT and PrivateSVM report close-to-random class labels"),
        load_claim("latex", "we set c = 1.25 × 10⁻³ … ε-differential privacy"),
        load_claim("changed", "whereas GUPT and PrivateSVM report close-to-random class values"),
        load_claim("elided", "PrivGene and PrivateERM are highly competitive … report accurate class labels"),
        load_claim("empty", ""),
    ]
    assert unquoted(claims, text) == ["changed", "elided", "empty"]


def load_claim(claim_id: str, quote: str):
    from dpreplication.scorecard import Claim

    return Claim(
        id=claim_id, paper="p", section="s", claim="x", expected=0.0, table="t", column="c", kind="paper", quote=quote
    )
