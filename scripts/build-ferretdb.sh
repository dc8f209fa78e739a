#!/usr/bin/env bash
# Builds FerretDB (MongoDB wire protocol over SQLite) once into .tools/bin/ferretdb.
# `go install ...@v1.24.2` cannot be used as is: the module proxy refuses the version list that
# `go install` asks for, and the module's build/version/version.txt is empty in the release zip
# (the binary panics at start without it). So: download the module, copy it, patch, stamp the version, build.
#
# The patch (one line): FerretDB 1.24's SQLite backend creates each collection's unique `_id` index on
# the expression `_ferretdb_sjson->"_id"`, but writes its `_id` lookups (a find by exactly `{ _id }`,
# and every update and delete, which FerretDB applies row by row by `_id`) as
# `_ferretdb_sjson->'$._id'`. Both select the same value, but SQLite uses an index on an expression only
# when the query writes the same expression, so every one of them read the whole table (0.2 s for the
# last of 150,000 rows; 0.1 ms with the index). The patch writes the lookups as the index does.
# test/harness/ferretdb-id-index.test.ts checks the built binary's query plan.
set -euo pipefail
VERSION=v1.24.2
STAMP="$VERSION-ies.1" # change the suffix when the patch changes: an older build is then rebuilt
root="$(cd "$(dirname "$0")/.." && pwd)"
out="$root/.tools/bin/ferretdb"
if [ -x "$out" ] && "$out" --version 2>/dev/null | grep -qF "$STAMP"; then
  exit 0
fi
src=$(cd "$(mktemp -d)" && go mod download -json "github.com/FerretDB/FerretDB@$VERSION" | sed -n 's/^\s*"Dir": "\(.*\)",$/\1/p')
build=$(mktemp -d)
cp -r "$src/." "$build/"
chmod -R u+w "$build"
metadata="$build/internal/backends/sqlite/metadata/metadata.go"
before="IDColumn = DefaultColumn + \"->'\$._id'\""
after='IDColumn = DefaultColumn + `->"_id"`'
grep -qF "$before" "$metadata" || { echo "build-ferretdb: the line to patch is not in $metadata" >&2; exit 1; }
sed -i "s|$(printf '%s' "$before" | sed 's/[.$*[\^]/\\&/g')|$after|" "$metadata"
grep -qF "$after" "$metadata" || { echo "build-ferretdb: patching $metadata failed" >&2; exit 1; }
echo "$STAMP" > "$build/build/version/version.txt"
mkdir -p "$(dirname "$out")"
(cd "$build" && go build -trimpath -o "$out" ./cmd/ferretdb)
rm -rf "$build"
echo "built $out"
