output "security_group_id" {
  description = "Security group to attach to the data store."
  value       = aws_security_group.this.id
}

output "kms_key_arn" {
  description = "ARN of the key that encrypts the data store at rest."
  value       = aws_kms_key.this.arn
}
