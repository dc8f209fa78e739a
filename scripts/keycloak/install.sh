#!/usr/bin/env bash
# Installs Keycloak's Quarkus distribution once into .tools/keycloak-<version>/ (git-ignored),
# fetched from Maven's default repository with Maven itself. Idempotent: exits at once when present.
# Prints the install directory on stdout. Keycloak 26.6+ supports JDK 25 (the Temurin JDK here);
# KEYCLOAK_JAVA_HOME overrides the JDK used by the test harness (see test/harness/keycloak.ts).
set -euo pipefail
VERSION="${KEYCLOAK_VERSION:-26.7.3}"
root="$(cd "$(dirname "$0")/../.." && pwd)"
dest="$root/.tools/keycloak-$VERSION"
if [ -x "$dest/bin/kc.sh" ]; then
  echo "$dest"
  exit 0
fi
download="$root/.tools/downloads"
mkdir -p "$download"
zip="$download/keycloak-quarkus-dist-$VERSION.zip"
if [ ! -s "$zip" ]; then
  mvn -q -B dependency:copy \
    "-Dartifact=org.keycloak:keycloak-quarkus-dist:$VERSION:zip" \
    "-DoutputDirectory=$download" >&2
fi
tmp="$(mktemp -d "$root/.tools/keycloak-unzip.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT
if command -v unzip >/dev/null 2>&1; then
  unzip -q "$zip" -d "$tmp"
else
  (cd "$tmp" && jar xf "$zip")
fi
chmod +x "$tmp/keycloak-$VERSION/bin/"*.sh
mv "$tmp/keycloak-$VERSION" "$dest"
echo "$dest"
