output "web_acl_arn" {
  description = "ARN of the web ACL, for the CloudFront distribution."
  value       = aws_wafv2_web_acl.this.arn
}
