# Override file (see wiring.tf): with the vpc service enabled, every service that needs
# a network uses the VPC module's private subnets.

locals {
  # @section services.vpc.enabled begin
  use_default_vpc = false
  # tflint-ignore: terraform_unused_declarations
  vpc_id = module.vpc.vpc_id
  # tflint-ignore: terraform_unused_declarations
  private_subnet_ids = module.vpc.private_subnet_ids
  # tflint-ignore: terraform_unused_declarations
  allowed_cidr_blocks = [module.vpc.vpc_cidr_block]
  # @section services.vpc.enabled end
}
