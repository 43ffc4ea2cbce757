#!/usr/bin/env bash
# Install everything smolui needs on a fresh Debian/Ubuntu machine (also used by CI and Docker).
#   bash scripts/install.sh            # the app: Python packages (+ libseccomp for the sandbox)
#   bash scripts/install.sh --tests    # the app and the tests: also Chromium (browser tests),
#                                      # PostgreSQL (conversation store tests) and podman,
#                                      # runc, debootstrap (container tests; not the app)
set -euo pipefail
cd "$(dirname "$0")/.."

PYTHON="${PYTHON:-python3}"
want_browser=0
[ "${1:-}" = "--tests" ] && want_browser=1

apt_packages=()
ldconfig -p 2>/dev/null | grep -q libseccomp.so.2 || apt_packages+=(libseccomp2)
if [ "$want_browser" = 1 ] && [ ! -x /usr/bin/chromium ]; then
  apt_packages+=(chromium)
fi
# The conversation store's tests run a real PostgreSQL server (initdb/pg_ctl in a temp folder).
if [ "$want_browser" = 1 ] && ! command -v initdb >/dev/null && ! compgen -G "/usr/lib/postgresql/*/bin/initdb" >/dev/null; then
  apt_packages+=(postgresql)
fi
# The accessibility tests inject axe-core, installed with npm (below).
if [ "$want_browser" = 1 ] && ! command -v npm >/dev/null; then
  apt_packages+=(npm)
fi
# The container tests (the Docker executor) run podman, which serves the Docker API, with runc;
# base images come from Debian packages through debootstrap (no registry is reachable in CI).
# The fleet test puts HAProxy (deploy/haproxy.cfg) in front of two app processes; the compose
# fleet test runs deploy/compose.yaml with docker-compose on podman's Docker API, whose
# containers find each other by name through CNI's dnsname plugin.
if [ "$want_browser" = 1 ]; then
  for tool in podman runc debootstrap haproxy docker-compose; do
    command -v "$tool" >/dev/null || [ -x "/usr/sbin/$tool" ] || apt_packages+=("$tool")
  done
  [ -x /usr/lib/cni/dnsname ] || apt_packages+=(golang-github-containernetworking-plugin-dnsname)
fi
if [ "${#apt_packages[@]}" -gt 0 ]; then
  sudo_cmd=""
  [ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"
  echo "install: apt-get install ${apt_packages[*]}"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq --no-install-recommends "${apt_packages[@]}"
fi

# podman on these kernels: no default ulimits (the runtime may not raise RLIMIT_NPROC/NOFILE)
# and runc (crun refuses the hybrid cgroup v1/v2 layout). Written only when not already set.
containers_conf=/etc/containers/containers.conf
if [ "$want_browser" = 1 ] && ! { grep -qs '^default_ulimits = \[\]' "$containers_conf" \
    && grep -qs '^runtime = "runc"' "$containers_conf"; }; then
  sudo_cmd=""
  [ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"
  if [ -s "$containers_conf" ]; then
    echo "install: $containers_conf exists without default_ulimits = [] and runtime = \"runc\";" \
      "add them by hand (README: Scaling code execution)" >&2
  else
    echo "install: writing $containers_conf (runc, no default ulimits)"
    $sudo_cmd mkdir -p /etc/containers
    printf '[containers]\ndefault_ulimits = []\n\n[engine]\nruntime = "runc"\n' \
      | $sudo_cmd tee "$containers_conf" >/dev/null
  fi
fi

# pip: skip the resolver when requirements.txt has not changed since the last good install.
stamp_dir="${XDG_CACHE_HOME:-$HOME/.cache}/smolui"
stamp="$stamp_dir/requirements.sha256"
llama_cmake_args="-DGGML_NATIVE=OFF"
want="$(sha256sum requirements.txt | cut -d' ' -f1) $("$PYTHON" -c 'import sys; print(sys.prefix)') $llama_cmake_args"

# llama-cpp-python compiles llama.cpp. Its default (native) build uses every instruction set of
# the build machine: on CPUs with AMX (Xeon Sapphire Rapids and later) llama.cpp then multiplies
# through its AMX path, which crashed with SIGSEGV on the bundled model (seen 2026-11-25), and the
# wheel pip caches dies with SIGILL on an older CPU. A portable build (AVX2, no AVX-512 or AMX) is
# as fast for the 135M model. Rebuilt, bypassing pip's wheel cache, when the flags change.
build_llama_cpp() {
  local req built="$stamp_dir/llama-cpp.build"
  req="$(grep -o '^llama-cpp-python[^=]*==[0-9.]*' requirements.txt | sed 's/\[.*\]//')"
  local wanted="$req $llama_cmake_args $("$PYTHON" -c 'import sys; print(sys.prefix)')"
  if [ -f "$built" ] && [ "$(cat "$built")" = "$wanted" ] && "$PYTHON" -c "import llama_cpp" 2>/dev/null; then
    return
  fi
  echo "install: building $req without the build machine's own instruction sets ($llama_cmake_args)"
  CMAKE_ARGS="$llama_cmake_args" PIP_ROOT_USER_ACTION=ignore "$PYTHON" -m pip install \
    --disable-pip-version-check -q --no-cache-dir --force-reinstall --no-deps "$req"
  mkdir -p "$stamp_dir" && echo "$wanted" > "$built"
}
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ] && "$PYTHON" -c "import llama_cpp, gradio, pytest" 2>/dev/null; then
  echo "install: Python packages already installed"
else
  echo "install: pip install -r requirements.txt (llama-cpp-python compiles once, ~8 min)"
  build_llama_cpp
  PIP_ROOT_USER_ACTION=ignore "$PYTHON" -m pip install --disable-pip-version-check -q -r requirements.txt
  mkdir -p "$stamp_dir" && echo "$want" > "$stamp"
fi

# Browser tests inject axe-core (accessibility checks) from npm; pinned by package-lock.json.
if [ "$want_browser" = 1 ] && [ ! -f node_modules/axe-core/axe.min.js ]; then
  echo "install: npm ci (axe-core for the accessibility tests)"
  npm ci --no-audit --no-fund --silent
fi
