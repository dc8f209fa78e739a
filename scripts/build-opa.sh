#!/usr/bin/env bash
# Builds OPA once into .tools/bin/opa (a Go module, from the module proxy): it compiles the
# organisation's rules (templates/policies, POLICIES_DIR) to WebAssembly for the server and runs
# their tests in check:templates (docs/policies.md). Quick when the right version is there; a cold
# build takes about 2.5 minutes. Run by scripts/provision.sh and by `npm start` when opa is missing.
set -euo pipefail
OPA_VERSION=v1.22.3
root="$(cd "$(dirname "$0")/.." && pwd)"
if [[ "$("$root/.tools/bin/opa" version 2>/dev/null | head -1)" != "Version: ${OPA_VERSION#v}" ]]; then
  echo "provision: go install opa@$OPA_VERSION"
  GOBIN="$root/.tools/bin" go install "github.com/open-policy-agent/opa@$OPA_VERSION"
fi
