locals {
  # Every resource name starts with the global prefix, then the environment name.
  name_prefix = var.global_prefix == "" ? var.name : "${var.global_prefix}-${var.name}"

  # @section services.vpc.enabled begin
  # The VPC tags its subnets for the cluster's load balancers (the eks module names it so).
  eks_cluster_name = "${local.name_prefix}-eks"
  # @section services.vpc.enabled end

  tags = {
    "ies:environment" = var.name
    "ies:prefix"      = var.global_prefix
    ManagedBy         = "terraform"
  }
}
