#!/usr/bin/env bash
# Builds the Terraform provider mirror the tests run `terraform init/validate/plan` with, once
# (quick when it is there):
#
#   .tools/terraform/mirror/registry.terraform.io/hashicorp/
#     archive/2.7.99/<os>_<arch>/terraform-provider-archive_v2.7.99_x5   STAND-IN, built here
#     aws/5.100.0/<os>_<arch>/terraform-provider-aws_v5.100.0_x5 -> /opt/tf-plugins/...   the real one (link)
#   .tools/terraform/terraformrc       CLI config: that mirror only (use it as TF_CLI_CONFIG_FILE;
#                                      written by cli-config.ts for the checkout it is in)
#
# hashicorp/archive here is NOT the registry's provider: the registry cannot be reached from
# these machines and the Go module proxy refuses the real provider's module, so a small
# provider of our own (scripts/terraform/archive-provider, the archive_file data source with
# the real schema) is built with Go and installed under that address. Its version, 2.7.99, is
# not one hashicorp/archive has released: it satisfies the templates' "~> 2.7.0" and is not
# mistaken for (or cached in place of) a real release. See scripts/terraform/README.md.
#
# TF_PLUGINS_DIR: the pre-installed mirror holding the aws provider (default /opt/tf-plugins).
set -euo pipefail
ARCHIVE_VERSION=2.7.99
AWS_VERSION=5.100.0
root="$(cd "$(dirname "$0")/../.." && pwd)"
src="$root/scripts/terraform/archive-provider"
plugins="${TF_PLUGINS_DIR:-/opt/tf-plugins}"
out="$root/.tools/terraform"
mirror="$out/mirror/registry.terraform.io/hashicorp"
platform="$(go env GOOS)_$(go env GOARCH)"
bin="$mirror/archive/$ARCHIVE_VERSION/$platform/terraform-provider-archive_v${ARCHIVE_VERSION}_x5"
stamp="$out/archive-provider.sha256"

# The stand-in: rebuilt when its sources (or the version) change.
sum=$( (echo "$ARCHIVE_VERSION"; cat "$src/go.mod" "$src/go.sum" "$src"/*.go) | sha256sum | cut -d' ' -f1)
if [ ! -x "$bin" ] || [ "$(cat "$stamp" 2>/dev/null)" != "$sum" ]; then
  rm -rf "$mirror/archive"
  mkdir -p "$(dirname "$bin")"
  (cd "$src" && go build -trimpath -ldflags "-s -w -X main.version=$ARCHIVE_VERSION" -o "$bin" .)
  echo "$sum" > "$stamp"
  echo "built $bin (local stand-in for hashicorp/archive)"
fi

# The real aws provider, linked from the pre-installed mirror (it is 700 MB: never copied). The
# link is the executable itself: Terraform's mirror search does not enter linked directories.
aws_name="terraform-provider-aws_v${AWS_VERSION}_x5"
aws_src="$plugins/registry.terraform.io/hashicorp/aws/$AWS_VERSION/$platform/$aws_name"
aws_dst="$mirror/aws/$AWS_VERSION/$platform/$aws_name"
if [ ! -x "$aws_src" ]; then
  echo "build-mirror: $aws_src is missing: the mirror has no aws provider" >&2
  exit 1
fi
if [ "$(readlink "$aws_dst" 2>/dev/null)" != "$aws_src" ]; then
  rm -rf "$mirror/aws"
  mkdir -p "$(dirname "$aws_dst")"
  ln -s "$aws_src" "$aws_dst"
fi

# The CLI configuration: this mirror and nothing else (no registry, no checkpoint call). It names the
# mirror by absolute path, so scripts/terraform/cli-config.ts writes it and rewrites it whenever the
# checkout moves (scripts/checkout-paths.ts runs before the tests).
(cd "$root" && node --import tsx scripts/terraform/cli-config.ts)
