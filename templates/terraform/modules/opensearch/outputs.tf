output "endpoint" {
  description = "HTTPS endpoint of the domain (inside the VPC)."
  value       = aws_opensearch_domain.this.endpoint
}

output "domain_arn" {
  description = "ARN of the domain."
  value       = aws_opensearch_domain.this.arn
}

output "security_group_id" {
  description = "Security group of the domain."
  value       = module.access.security_group_id
}
