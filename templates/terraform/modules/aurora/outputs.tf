output "endpoint" {
  description = "Writer endpoint of the cluster."
  value       = aws_rds_cluster.this.endpoint
}

output "reader_endpoint" {
  description = "Load-balanced reader endpoint of the cluster."
  value       = aws_rds_cluster.this.reader_endpoint
}

output "master_user_secret_arn" {
  description = "Secrets Manager secret holding the master password."
  value       = aws_rds_cluster.this.master_user_secret[0].secret_arn
}

output "security_group_id" {
  description = "Security group of the cluster."
  value       = module.access.security_group_id
}
