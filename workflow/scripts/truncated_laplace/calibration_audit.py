from dpreplication import seeding
from dpreplication.replications import truncated_laplace_audits as tl
from dpreplication.workflow import publish, start

start(snakemake)
rng = seeding.generator(snakemake.params.seed, "truncated_laplace", "calibration_audit")
audit = tl.calibration_audit(rng, **snakemake.params.settings)
publish(snakemake, audit)
publish(snakemake, tl.calibration_audit_summary(audit), prefix="summary_")
