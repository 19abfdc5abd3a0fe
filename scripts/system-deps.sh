#!/usr/bin/env bash
# Debian packages the build needs (a C++17 compiler, Python headers and venv); with `test`, also those the tests
# use (espeak-ng speaks the speech tests' clips, mosquitto is the MQTT tests' broker, chromium and its driver run
# the dashboard's end-to-end test). Installs only what is missing, and only as root; otherwise says what to
# install (a build package missing stops; a test package missing only means its tests skip).
set -euo pipefail
missing=()
command -v g++ >/dev/null 2>&1 || missing+=(g++)
command -v make >/dev/null 2>&1 || missing+=(make)
python3 -c "import sysconfig, os, sys; sys.exit(not os.path.exists(os.path.join(sysconfig.get_paths()['include'], 'Python.h')))" \
  || missing+=(python3-dev)
python3 -c "import venv, ensurepip" 2>/dev/null || missing+=(python3-venv)
for_tests=()
if [ "${1:-}" = test ]; then
  command -v espeak-ng >/dev/null 2>&1 || for_tests+=(espeak-ng)
  command -v mosquitto >/dev/null 2>&1 || [ -x /usr/sbin/mosquitto ] || for_tests+=(mosquitto)
  command -v chromium >/dev/null 2>&1 || for_tests+=(chromium)
  command -v chromedriver >/dev/null 2>&1 || for_tests+=(chromium-driver)
fi
[ ${#missing[@]} -eq 0 ] && [ ${#for_tests[@]} -eq 0 ] && exit 0
if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null 2>&1; then
  [ ${#for_tests[@]} -gt 0 ] && echo "the tests that need these system packages will skip: ${for_tests[*]}" >&2
  [ ${#missing[@]} -eq 0 ] && exit 0
  echo "edge-agent needs these system packages: ${missing[*]}" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -q
apt-get install -y -q --no-install-recommends "${missing[@]}" "${for_tests[@]}"
