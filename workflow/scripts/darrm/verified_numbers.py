from dpreplication.pipeline.jobs import publish, start
from dpreplication.replications.darrm import verified
from dpreplication.scorecard.claims import load_registry

start(snakemake)
# The registry is the one home of the cases: one row per claim on this table.
selections = [claim.select for claim in load_registry(snakemake.input.registry) if claim.table == "verified_numbers"]
publish(snakemake, verified.verified_numbers(selections, **snakemake.params.settings, seed=snakemake.params.seed))
