#!/usr/bin/env bash
# A stand-in for `sacct`: prints running, success or failed for a job id of submit_local.sh.
set -euo pipefail
state="${CLUSTER_LOCAL_STATE:-.snakemake/cluster-local}"
exit_file="$state/$1.exit"
if [[ ! -s "$exit_file" ]]; then
    echo running
elif [[ "$(cat "$exit_file")" == 0 ]]; then
    echo success
else
    echo failed
fi
