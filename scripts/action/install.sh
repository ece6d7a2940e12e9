#!/usr/bin/env bash
# Runs `svc-dl install` for the action (action.yml) from its own build, with the report written
# on every exit: step outputs `report` (its absolute path), `downloaded`, `cached`, `failed`, and
# an `::error file=…::` annotation per failed item (outputs.js). The key arrives only as
# SVC_API_KEY; inputs arrive as INPUT_* variables, never in the script text. Exits with
# svc-dl's exit code.
set -euo pipefail
action="${SVC_DL_ACTION_PATH:?SVC_DL_ACTION_PATH is not set}"
. "$action/scripts/action/lib.sh"
out="${GITHUB_OUTPUT:?GITHUB_OUTPUT is not set}"
manifest="${INPUT_MANIFEST:-svc-dl.json}"
report="${INPUT_REPORT:-svc-dl-report.json}"
case "$report" in
  /*) ;;
  *) report="$PWD/$report" ;;
esac
put "$out" report "$report"
args=(install --manifest "$manifest" --report "$report")
if [ "${INPUT_FROZEN:-true}" = "true" ]; then args+=(--frozen); fi
if [ "${INPUT_EXTRACT:-false}" = "true" ]; then args+=(--extract); fi
if [ "${INPUT_CACHE:-true}" != "true" ]; then args+=(--no-cache); fi
if [ -n "${INPUT_BASE_URL:-}" ]; then export SVC_BASE_URL="$INPUT_BASE_URL"; fi
code=0
node "$action/bin/svc-dl.js" "${args[@]}" || code=$?
lock="${INPUT_LOCK:-$(dirname -- "$manifest")/svc-dl.lock}"
node "$action/scripts/action/outputs.js" "$report" "${lock#./}" "$manifest" || {
  if [ "$code" -eq 0 ]; then code=1; fi
}
exit "$code"
