locals {
  # Every resource name starts with the global prefix, then the environment name.
  name_prefix = var.global_prefix == "" ? var.name : "${var.global_prefix}-${var.name}"

  eks_cluster_name = "${local.name_prefix}-eks"

  tags = {
    "ies:environment" = var.name
    "ies:prefix"      = var.global_prefix
    ManagedBy         = "terraform"
  }
}
