# Override file (see wiring.tf): with the waf service enabled, the CloudFront
# distribution is protected by its web ACL.

locals {
  # @section services.waf.enabled begin
  # tflint-ignore: terraform_unused_declarations
  cloudfront_web_acl_arn = module.waf.web_acl_arn
  # @section services.waf.enabled end
}
