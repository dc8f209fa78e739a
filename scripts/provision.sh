#!/usr/bin/env bash
# Installs what the tests need beyond npm packages, once; quick when everything is there.
# Run by `npm test` (so `npm ci && npm test` works on a fresh machine) and by `.ci/run`.
#   Debian: git, Chromium (browser tests), Redis (shared counters)   Python: moto, schemathesis
#   Go: FerretDB   Maven: Keycloak   npm: the web UI build
set -euo pipefail
cd "$(dirname "$0")/.."
export DEBIAN_FRONTEND=noninteractive

need=()
command -v git >/dev/null || need+=(git)
command -v chromium >/dev/null || need+=(chromium)
command -v redis-server >/dev/null || need+=(redis-server)
command -v unzip >/dev/null || need+=(unzip)
if [ ${#need[@]} -gt 0 ]; then
  echo "provision: apt-get install ${need[*]}"
  apt-get update -qq
  apt-get install -y -qq "${need[@]}" >/dev/null
fi

python3 -c 'import moto.server' 2>/dev/null || { echo "provision: pip install moto[server]"; python3 -m pip install -q 'moto[server]'; }
command -v schemathesis >/dev/null || { echo "provision: pip install schemathesis"; python3 -m pip install -q 'schemathesis==4.32.5'; }

scripts/build-ferretdb.sh
# Terraform's provider mirror for terraform-validate.test.ts (the aws provider of the image and a
# local stand-in for hashicorp/archive, see scripts/terraform/README.md); only where both exist.
if command -v terraform >/dev/null && [ -d "${TF_PLUGINS_DIR:-/opt/tf-plugins}" ]; then
  scripts/terraform/build-mirror.sh
fi
scripts/keycloak/install.sh >/dev/null
# Provisioned paths that name the checkout (terraformrc, tap's plugin link) follow it when it moves.
node --import tsx scripts/checkout-paths.ts

if [ ! -f desktop/dist/index.html ] || [ -n "$(find desktop/src desktop/index.html desktop/vite.config.ts -newer desktop/dist/index.html -print -quit 2>/dev/null)" ]; then
  echo "provision: building the web UI"
  npm run -s build -w desktop >/dev/null
fi
