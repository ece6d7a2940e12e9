#!/usr/bin/env bash
# Builds svc-dl from the action's own checkout (action.yml) with only what the build needs: a
# package-lock.json holding only the build's packages of the action's lock (build-tools.js: the
# dependencies the program bundle inlines and esbuild, not the test, lint and type-check tools),
# installed with `npm ci` (every package from the lock with its integrity hash, no install
# script) beside the checkout and linked in as its node_modules. npm's downloads go to
# SVC_DL_NPM_CACHE (restored and saved by the action, checked by npm ci on use).
set -euo pipefail
cd "${SVC_DL_ACTION_PATH:?SVC_DL_ACTION_PATH is not set}"
npm_cache="${SVC_DL_NPM_CACHE:?SVC_DL_NPM_CACHE is not set}"
tools="${RUNNER_TEMP:-${TMPDIR:-/tmp}}/svc-dl-build-tools"
rm -rf -- "$tools"
node scripts/action/build-tools.js package-lock.json "$tools"
(cd "$tools" && npm ci --ignore-scripts --no-audit --no-fund --prefer-offline --loglevel=error --cache "$npm_cache")
if [ ! -e node_modules ]; then ln -s -- "$tools/node_modules" node_modules; fi
node scripts/build.js
