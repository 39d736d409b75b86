"""The workflow's machinery: what only the Snakemake pipeline and its tools need, not the science.

* :mod:`~dpreplication.pipeline.config` — the profiles, their overlays and defaults, the variants;
  :mod:`~dpreplication.pipeline.config_validation` — the schema's and the cross-field checks;
  :mod:`~dpreplication.pipeline.command_line` — the checks of a Snakemake command line;
  :mod:`~dpreplication.pipeline.instruction_sets` — the jobs' threads and pinned instruction set;
* :mod:`~dpreplication.pipeline.jobs` — a job's start and publish (tables, figures, sidecars);
* :mod:`~dpreplication.pipeline.provenance` — the sidecars: commit, settings, hashes, calls;
* :mod:`~dpreplication.pipeline.snakefile` — the one loader of the Snakefile;
* :mod:`~dpreplication.pipeline.drift`, :mod:`~dpreplication.pipeline.report`,
  :mod:`~dpreplication.pipeline.environment`, :mod:`~dpreplication.pipeline.cluster_resources`
  (:mod:`~dpreplication.pipeline.measurements`, :mod:`~dpreplication.pipeline.paper_plan`,
  :mod:`~dpreplication.pipeline.cost_page`), :mod:`~dpreplication.pipeline.code_graph`,
  :mod:`~dpreplication.pipeline.figure_map` — the drift references, the HTML report, the pinned
  environment, SLURM resources and the rules' costs, and the figure map.

The concept packages (mechanisms, accounting, learning, ...) and the replications never import it.
"""
