// Command terraform-provider-archive is a local STAND-IN for the Terraform registry's
// hashicorp/archive provider, built on this machine because the registry cannot be reached
// from here (and the Go module proxy refuses the real provider's module). It exists only so
// that `terraform init`, `terraform validate` and `terraform plan` can run over the generated
// trees in IES's tests and CI. Customers of the generated repositories get the real provider
// from the registry; nothing generated refers to this one. See README.md.
//
// It implements the `archive_file` data source with the real provider's schema (every
// argument and attribute name and type of hashicorp/archive 2.7's data source), so
// configurations validate the same way, and it builds real zip archives with the checksums
// the real provider computes. It does not implement the deprecated `archive_file` resource,
// the ephemeral resource, nor `type = "tar.gz"` (see README.md).
package main

import (
	"context"
	"flag"
	"log"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"
)

func main() {
	debug := flag.Bool("debug", false, "run the provider in debug mode (for delve)")
	flag.Parse()
	err := providerserver.Serve(context.Background(), newProvider, providerserver.ServeOpts{
		// The provider address Terraform resolves `hashicorp/archive` to.
		Address:         "registry.terraform.io/hashicorp/archive",
		Debug:           *debug,
		ProtocolVersion: 5, // as the real provider (its release files are named *_x5)
	})
	if err != nil {
		log.Fatal(err)
	}
}
