#!/usr/bin/env bash
# First step of the action (action.yml): the facts later steps need, as step outputs:
# - lock: svc-dl.lock beside the manifest, relative to the workspace (for hashFiles());
# - cache-dir: the svc-dl download cache (SVC_DL_CACHE_DIR, else RUNNER_TEMP/svc-dl-cache), also
#   exported to later steps through GITHUB_ENV;
# - npm-cache: the action's own npm cache (downloaded package tarballs, checked by npm ci against
#   the lock's integrity hashes: no code is loaded from it unchecked);
# - build-key: the key of that npm cache: OS, CPU, Node version and the SHA-256 of the action's
#   package-lock.json (outside the workspace, where hashFiles() cannot reach).
# Inputs arrive as environment variables only; a value with a line break is refused.
set -euo pipefail
action="${SVC_DL_ACTION_PATH:?SVC_DL_ACTION_PATH is not set}"
. "$action/scripts/action/lib.sh"
out="${GITHUB_OUTPUT:?GITHUB_OUTPUT is not set}"
manifest="${INPUT_MANIFEST:-svc-dl.json}"
lock="$(dirname -- "$manifest")/svc-dl.lock"
lock="${lock#./}"
if [ -n "${GITHUB_WORKSPACE:-}" ]; then lock="${lock#"$GITHUB_WORKSPACE"/}"; fi
temp="${RUNNER_TEMP:-${TMPDIR:-/tmp}}"
cache_dir="${SVC_DL_CACHE_DIR:-$temp/svc-dl-cache}"
lock_sha="$(sha256sum -- "$action/package-lock.json" | cut -d ' ' -f 1)"
put "$out" lock "$lock"
put "$out" cache-dir "$cache_dir"
put "$out" npm-cache "$temp/svc-dl-npm-cache"
put "$out" build-key "svc-dl-build-${RUNNER_OS:-os}-${RUNNER_ARCH:-arch}-node$(node --version)-$lock_sha"
put "${GITHUB_ENV:?GITHUB_ENV is not set}" SVC_DL_CACHE_DIR "$cache_dir"
