#!/usr/bin/env bash
# Installs every Debian package dasim needs. Idempotent: when everything is already there it
# prints nothing and touches nothing, so the README commands can call it every time.
set -euo pipefail

packages=(
  build-essential cmake pkg-config procps clang-format
  libsimgrid-dev nlohmann-json3-dev libfmt-dev libgtest-dev libgmock-dev libcli11-dev libbenchmark-dev
  libopenmpi-dev openmpi-bin libopenblas-dev libgoogle-perftools-dev
  python3 python3-matplotlib python3-pandas
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
[ ${#missing[@]} -eq 0 ] && exit 0

sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
echo "setup: installing ${missing[*]}" >&2
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
