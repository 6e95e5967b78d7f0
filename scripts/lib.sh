# shellcheck shell=bash disable=SC2034
# Shared by scripts/run and scripts/test (sourced, not executed).

# Debian packages each job needs (Debian 12 names).
NATIVE_PACKAGES=(g++ cmake ninja-build libgtest-dev googletest libbenchmark-dev nlohmann-json3-dev)
WASM_PACKAGES=(emscripten nodejs)
CHECK_PACKAGES=(clang-format)

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
