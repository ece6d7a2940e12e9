#!/usr/bin/env bash
# Builds svc-dl from the action's own checkout (action.yml) with only what the build needs: the
# runtime dependencies (npm ci --omit=dev: the program bundle inlines them) and esbuild, from a
# package-lock.json holding only esbuild's entries of the action's lock (build-tools.js), so
# every package comes from the action's lock with its integrity hash and no dev tool (test
# runner, linter, type checker) is installed. No install script runs. npm's downloads go to
# SVC_DL_NPM_CACHE (restored and saved by the action, checked by npm ci on use).
set -euo pipefail
cd "${SVC_DL_ACTION_PATH:?SVC_DL_ACTION_PATH is not set}"
npm_cache="${SVC_DL_NPM_CACHE:?SVC_DL_NPM_CACHE is not set}"
flags=(--ignore-scripts --no-audit --no-fund --prefer-offline --loglevel=error --cache "$npm_cache")
npm ci --omit=dev "${flags[@]}"
tools="${RUNNER_TEMP:-${TMPDIR:-/tmp}}/svc-dl-build-tools"
rm -rf -- "$tools"
node scripts/action/build-tools.js package-lock.json "$tools"
(cd "$tools" && npm ci "${flags[@]}")
ln -sfn -- "$tools/node_modules/esbuild" node_modules/esbuild
node scripts/build.js
