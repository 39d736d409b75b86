"""Differentially private model fitting.

PrivGene (a genetic algorithm with the enhanced exponential mechanism) and its baselines
(functional mechanism, objective and output perturbation, sample-and-aggregate), the shared
cross-validation protocol, DP-SGD teachers.
"""

from dpreplication.exports import lazy_exports

_EXPORTS = {
    "PrivGeneSettings": "genetic",
    "PrivGeneResult": "genetic",
    "privgene": "genetic",
    "LogisticFitness": "fitness",
    "SVMFitness": "fitness",
    "KMeansFitness": "fitness",
    "fit_functional_mechanism": "functional_mechanism",
    "fit_private_erm": "objective_perturbation",
    "fit_private_svm": "output_perturbation",
    "gupt_aggregate": "sample_and_aggregate",
    "train_private": "teachers",
}
__all__, __getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
