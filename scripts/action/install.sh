#!/usr/bin/env bash
# Runs `svc-dl install` for the action (action.yml) from its own build, with the report written
# on every exit and its absolute path as the step output `report`. The key arrives only as
# SVC_API_KEY in the environment; inputs arrive as INPUT_* variables, never in the script text.
set -euo pipefail
bin="${SVC_DL_ACTION_PATH:?SVC_DL_ACTION_PATH is not set}/bin/svc-dl.js"
report="${INPUT_REPORT:-svc-dl-report.json}"
case "$report" in
  /*) ;;
  *) report="$PWD/$report" ;;
esac
args=(install --manifest "${INPUT_MANIFEST:-svc-dl.json}" --report "$report")
if [ "${INPUT_FROZEN:-true}" = "true" ]; then args+=(--frozen); fi
if [ "${INPUT_EXTRACT:-false}" = "true" ]; then args+=(--extract); fi
if [ "${INPUT_CACHE:-true}" != "true" ]; then args+=(--no-cache); fi
if [ -n "${INPUT_BASE_URL:-}" ]; then export SVC_BASE_URL="$INPUT_BASE_URL"; fi
echo "report=$report" >> "${GITHUB_OUTPUT:?GITHUB_OUTPUT is not set}"
exec node "$bin" "${args[@]}"
