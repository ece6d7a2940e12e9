#!/usr/bin/env bash
# Builds svc-dl from the action's own checkout (action.yml): the version is the action's ref,
# and no registry name is resolved at run time.
set -euo pipefail
cd "${SVC_DL_ACTION_PATH:?SVC_DL_ACTION_PATH is not set}"
npm ci --no-audit --no-fund --loglevel=error
npm run build --silent
