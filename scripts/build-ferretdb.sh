#!/usr/bin/env bash
# Builds FerretDB (MongoDB wire protocol over SQLite) once into .tools/bin/ferretdb.
# `go install ...@v1.24.2` cannot be used as is: the module proxy refuses the version list that
# `go install` asks for, and the module's build/version/version.txt is empty in the release zip
# (the binary panics at start without it). So: download the module, copy it, stamp the version, build.
set -euo pipefail
VERSION=v1.24.2
root="$(cd "$(dirname "$0")/.." && pwd)"
out="$root/.tools/bin/ferretdb"
if [ -x "$out" ] && "$out" --version 2>/dev/null | grep -q "${VERSION#v}"; then
  exit 0
fi
src=$(cd "$(mktemp -d)" && go mod download -json "github.com/FerretDB/FerretDB@$VERSION" | sed -n 's/^\s*"Dir": "\(.*\)",$/\1/p')
build=$(mktemp -d)
cp -r "$src/." "$build/"
chmod -R u+w "$build"
echo "$VERSION" > "$build/build/version/version.txt"
mkdir -p "$(dirname "$out")"
(cd "$build" && go build -trimpath -o "$out" ./cmd/ferretdb)
rm -rf "$build"
echo "built $out"
