output "primary_endpoint_address" {
  description = "Primary (read-write) endpoint."
  value       = aws_elasticache_replication_group.this.primary_endpoint_address
}

output "reader_endpoint_address" {
  description = "Reader endpoint spread over the replicas."
  value       = aws_elasticache_replication_group.this.reader_endpoint_address
}

output "security_group_id" {
  description = "Security group of the cache."
  value       = module.access.security_group_id
}

output "auth_token_secret_arn" {
  description = "Secrets Manager secret holding the AUTH token clients must send."
  value       = aws_secretsmanager_secret.auth_token.arn
}
