provider "aws" {
  region = var.region

  default_tags {
    tags = local.tags
  }
}

# CloudFront certificates and CLOUDFRONT-scope web ACLs must be created in us-east-1. Only
# the cloudfront, waf and route53 services use it, so it is unused when all are disabled.
# tflint-ignore: terraform_unused_declarations
provider "aws" {
  alias  = "us_east_1"
  region = "us-east-1"

  default_tags {
    tags = local.tags
  }
}
