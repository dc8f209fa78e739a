#!/usr/bin/env bash
# Starts the production setup of docs/operations.md on loopback and runs a journey through both
# replicas with the `ies` command line (scripts/production-smoke.ts). Whatever happens, every
# process it started is stopped on exit: the script's own process group, and Keycloak's.
set -euo pipefail
cd "$(dirname "$0")/.."
groups=$(mktemp)
smoke=''
cleanup() {
  local pgid
  for pgid in ${smoke} $(cat "$groups"); do kill -TERM -- "-$pgid" 2>/dev/null || true; done
  sleep 2
  for pgid in ${smoke} $(cat "$groups"); do kill -KILL -- "-$pgid" 2>/dev/null || true; done
  rm -f "$groups"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
SMOKE_PID_FILE="$groups" setsid node --import tsx scripts/production-smoke.ts &
smoke=$!
status=0
wait "$smoke" || status=$?
smoke=''
exit "$status"
