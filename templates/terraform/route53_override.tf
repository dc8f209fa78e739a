# Override file (see wiring.tf): with the route53 service enabled and a domain set,
# services publish their host names in the environment's hosted zone.

locals {
  # @section services.route53.enabled begin
  # tflint-ignore: terraform_unused_declarations
  dns_zone_enabled = var.domain != ""
  # tflint-ignore: terraform_unused_declarations
  dns_zone_id = module.route53.zone_id
  # @section services.route53.enabled end
}
