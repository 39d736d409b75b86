#!/usr/bin/env bash
# A stand-in for `sbatch --parsable`: runs a Snakemake jobscript detached on this machine and
# prints a job id, so the cluster-generic executor path is exercised without a cluster
# (profiles/cluster-local, tests/test_cluster.py). Job state lives in $CLUSTER_LOCAL_STATE.
set -euo pipefail
jobscript="$1"
state="${CLUSTER_LOCAL_STATE:-.snakemake/cluster-local}"
mkdir -p "$state"
id="$(date +%s%N)-$$"
nohup bash -c 'bash "$1" > "$2/$3.log" 2>&1; echo $? > "$2/$3.exit"' _ "$jobscript" "$state" "$id" >/dev/null 2>&1 &
echo "$id"
