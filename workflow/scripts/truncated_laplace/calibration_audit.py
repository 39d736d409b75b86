from dpreplication import seeding
from dpreplication.pipeline.jobs import publish, start
from dpreplication.replications.truncated_laplace import audits as tl

start(snakemake)
rng = seeding.generator(snakemake.params.seed, "truncated_laplace", "calibration_audit")
audit = tl.calibration_audit(rng, **snakemake.params.settings)
publish(snakemake, audit)
publish(snakemake, tl.calibration_audit_summary(audit), prefix="summary_")
