#!/usr/bin/env bash
# Before the action saves the download cache (action.yml): `svc-dl cache prune --keep-lock LOCK`,
# so the saved cache holds only the files the lock names and never grows from run to run.
set -euo pipefail
action="${SVC_DL_ACTION_PATH:?SVC_DL_ACTION_PATH is not set}"
exec node "$action/bin/svc-dl.js" cache prune --keep-lock "${INPUT_LOCK:?INPUT_LOCK is not set}"
