#!/usr/bin/env bash
# Step outputs for actions/cache (action.yml): the svc-dl cache dir (SVC_DL_CACHE_DIR, kept for
# later steps through GITHUB_ENV) and the SHA-256 of svc-dl.lock beside the manifest.
set -euo pipefail
manifest="${INPUT_MANIFEST:-svc-dl.json}"
lock="$(dirname -- "$manifest")/svc-dl.lock"
cache_dir="${SVC_DL_CACHE_DIR:-${RUNNER_TEMP:-${TMPDIR:-/tmp}}/svc-dl-cache}"
if [ -f "$lock" ]; then
  hash="$(sha256sum -- "$lock" | cut -d ' ' -f 1)"
else
  hash="no-lock"
fi
{
  echo "cache-dir=$cache_dir"
  echo "lock-hash=$hash"
} >> "${GITHUB_OUTPUT:?GITHUB_OUTPUT is not set}"
echo "SVC_DL_CACHE_DIR=$cache_dir" >> "${GITHUB_ENV:?GITHUB_ENV is not set}"
