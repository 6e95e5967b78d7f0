# shellcheck shell=bash disable=SC2034
# Shared by scripts/run and scripts/test (sourced, not executed).

# Debian packages each job needs (Debian 12 names).
NATIVE_PACKAGES=(g++ cmake ninja-build ccache libgtest-dev googletest libbenchmark-dev nlohmann-json3-dev)
WASM_PACKAGES=(emscripten nodejs)
# clang and its runtime libraries (libFuzzer, sanitizers) for the fuzz suite of scripts/test.
CHECK_PACKAGES=(clang-format clang-tidy clang libclang-rt-14-dev)
# Headless Chromium for the web page's browser tests (web/e2e/, driven by playwright-core).
WEB_PACKAGES=(chromium)

# Installs the packages of the arguments that are not installed yet: one `apt-get update`, then one
# `apt-get install`. Without apt-get (not Debian) it only says what it could not check.
ensure_packages() {
  local missing=() pkg
  for pkg in "$@"; do
    # Node may come from elsewhere (nodesource, setup-node); any `node` on PATH will do.
    if [[ $pkg == nodejs ]] && command -v node >/dev/null; then continue; fi
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed' || missing+=("$pkg")
  done
  ((${#missing[@]} == 0)) && return 0
  if ! command -v apt-get >/dev/null; then
    echo "warning: no apt-get; make sure these are installed: ${missing[*]}" >&2
    return 0
  fi
  local sudo=()
  [[ $(id -u) == 0 ]] || sudo=(sudo)
  echo "Installing: ${missing[*]}"
  "${sudo[@]}" apt-get update
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}"
}

# The C++ sources the formatting check covers.
cxx_sources() {
  find core cli wasm tests -type f \( -name '*.h' -o -name '*.hpp' -o -name '*.cc' -o -name '*.cpp' \) \
    2>/dev/null | sort
}

# Installs web/'s npm packages (`npm ci`, exactly package-lock.json) when node_modules is missing
# or was installed from another lock file. Vite 8 needs Node 20.19 or later.
ensure_npm() {
  local stamp=web/node_modules/.optimus-package-lock.json
  if ! node -e 'const [a, b] = process.versions.node.split(".").map(Number); process.exit(a > 20 || (a === 20 && b >= 19) ? 0 : 1)'; then
    echo "error: the web page needs Node 20.19 or later (found $(node --version 2>/dev/null || echo none))" >&2
    return 1
  fi
  if [[ -d web/node_modules ]] && cmp -s web/package-lock.json "$stamp"; then return 0; fi
  (cd web && npm ci --no-audit --no-fund --loglevel=error) && cp web/package-lock.json "$stamp"
}
