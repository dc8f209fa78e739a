# Values one service takes from another. Each local below has a stand-alone default that
# keeps the root module valid when the providing service is disabled; the file
# <service>_override.tf (a Terraform override file, gated by that service's
# "@section services.<key>.enabled") replaces the defaults with the module's outputs.
# A local is read only while one of its consumers is enabled, and no single section can
# say "any consumer": each is marked for tflint (terraform_unused_declarations) instead.

# --- Network (vpc) -------------------------------------------------------------
# Without the vpc service, services that need a network use var.existing_vpc_id and
# var.existing_private_subnet_ids, or else the account's default VPC and its subnets.

locals {
  use_default_vpc = var.existing_vpc_id == ""
  # tflint-ignore: terraform_unused_declarations
  vpc_id = local.use_default_vpc ? one(data.aws_vpc.default[*].id) : var.existing_vpc_id
  # tflint-ignore: terraform_unused_declarations
  private_subnet_ids = local.use_default_vpc ? one(data.aws_subnets.default[*].ids) : var.existing_private_subnet_ids
  # tflint-ignore: terraform_unused_declarations
  allowed_cidr_blocks = local.use_default_vpc ? [one(data.aws_vpc.default[*].cidr_block)] : var.existing_allowed_cidr_blocks
}

data "aws_vpc" "default" {
  count = local.use_default_vpc ? 1 : 0

  default = true
}

data "aws_subnets" "default" {
  count = local.use_default_vpc ? 1 : 0

  filter {
    name   = "vpc-id"
    values = [data.aws_vpc.default[0].id]
  }

  filter {
    name   = "default-for-az"
    values = ["true"]
  }
}

# --- Edge protection (waf) -----------------------------------------------------

locals {
  # tflint-ignore: terraform_unused_declarations
  cloudfront_web_acl_arn = null
}

# --- DNS (route53) -------------------------------------------------------------
# Records and certificates under the domain need both a domain and the route53 service.

locals {
  # tflint-ignore: terraform_unused_declarations
  dns_zone_enabled = false
  # tflint-ignore: terraform_unused_declarations
  dns_zone_id = null
}
