#!/usr/bin/env bash
# The Node.js Porthole builds and tests with, on any machine.
#
# Porthole needs Node >= 22.12 (Electron 45's npm package declares it, and `.npmrc` has
# engine-strict). Where the system's `node` is older (Debian 12 ships 20, past its end of
# life), this fetches Node 24 LTS from the npm registry (the `node-linux-<arch>` package,
# checked against the integrity pinned below) into a cache, puts it first on PATH, and
# says so in one line. It then installs the project's dependencies when they are missing
# or older than package-lock.json, so a fresh clone needs nothing else.
#
#   bash scripts/toolchain.sh exec CMD [ARGS...]   run CMD with that Node first on PATH
#   eval "$(bash scripts/toolchain.sh env)"        the same PATH for this shell
#
# Only the registry's tarball is used: no install script runs, nothing outside the cache
# is written.
set -euo pipefail

readonly floor_major=22 floor_minor=12
readonly pinned=24.22.3
declare -A integrity=(
  [x64]='sha512-KHsob+Fv9YerATvYujMbiyJqnRCvLtrcr/eTNqRqiOSGp97EOiRP1yP47+knGgQ/xnc3XY8xzkW587dlZzNqRA=='
  [arm64]='sha512-IZx0J52/1NDwAsY2iyWR9nlPIYuYviTWetjj8+ElvYQh2+XRhLfCfkbFEF/2O5vGI2hcUbyPNHV+nz342FbJXw=='
)
work=
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cache="${XDG_CACHE_HOME:-$HOME/.cache}/porthole/node-v$pinned"

say() { printf 'porthole: %s\n' "$*" >&2; }

# True when the `node` on PATH is at least the floor.
node_is_recent() {
  local version major minor
  version="$(node --version 2>/dev/null)" || return 1
  version="${version#v}"
  major="${version%%.*}"
  minor="${version#*.}"
  minor="${minor%%.*}"
  ((major > floor_major || (major == floor_major && minor >= floor_minor)))
}

fetch_node() {
  local arch
  case "$(uname -m)" in
    x86_64) arch=x64 ;;
    aarch64) arch=arm64 ;;
    *)
      say "no Node 24 package for $(uname -m): install Node >= $floor_major.$floor_minor yourself"
      exit 1
      ;;
  esac
  work="$(mktemp -d)"
  trap 'rm -rf "$work"' EXIT
  # npm pack checks the tarball against the registry's integrity; we check it against
  # ours too, so a changed registry entry can't hand us another binary.
  local packed
  packed="$(cd "$work" && npm pack --silent "node-linux-$arch@$pinned")"
  local actual
  actual="sha512-$(openssl dgst -sha512 -binary "$work/$packed" | base64 -w0)"
  if [[ "$actual" != "${integrity[$arch]}" ]]; then
    say "node-linux-$arch@$pinned has integrity $actual, expected ${integrity[$arch]}: refusing it"
    exit 1
  fi
  tar -xzf "$work/$packed" -C "$work"
  mkdir -p "$(dirname "$cache")"
  rm -rf "$cache.partial"
  mv "$work/package" "$cache.partial"
  mv "$cache.partial" "$cache"
}

use_recent_node() {
  node_is_recent && return 0
  local system
  system="$(node --version 2>/dev/null || echo 'none')"
  if [[ ! -x "$cache/bin/node" ]]; then
    say "system Node $system is older than $floor_major.$floor_minor; fetching Node $pinned from the npm registry into $cache"
    fetch_node
  else
    say "system Node $system is older than $floor_major.$floor_minor; using Node $pinned from $cache"
  fi
  export PATH="$cache/bin:$PATH"
  # node-gyp builds against these headers instead of downloading them.
  export npm_config_nodedir="$cache"
}

# npm ci when node_modules is missing or older than the lockfile (a pull changed it).
install_dependencies() {
  local marker="$root/node_modules/.package-lock.json"
  # A linked node_modules (a git worktree sharing another checkout's install) belongs to
  # that checkout: npm ci here would empty it through the link, under the other's feet.
  [[ -L "$root/node_modules" ]] && return 0
  if [[ ! -f "$marker" || "$root/package-lock.json" -nt "$marker" ]]; then
    say "installing dependencies (npm ci)"
    (cd "$root" && npm ci --no-audit --no-fund >&2)
  fi
}

case "${1:-}" in
  env)
    use_recent_node
    printf 'export PATH=%q\n' "$PATH"
    [[ -n "${npm_config_nodedir:-}" ]] && printf 'export npm_config_nodedir=%q\n' "$npm_config_nodedir"
    ;;
  exec)
    shift
    (($#)) || {
      say "usage: toolchain.sh exec CMD [ARGS...]"
      exit 2
    }
    use_recent_node
    install_dependencies
    exec "$@"
    ;;
  *)
    say "usage: toolchain.sh env | exec CMD [ARGS...]"
    exit 2
    ;;
esac
