output "bucket_name" {
  description = "Name of the bucket."
  value       = aws_s3_bucket.this.id
}

output "bucket_arn" {
  description = "ARN of the bucket."
  value       = aws_s3_bucket.this.arn
}

output "kms_key_arn" {
  description = "Customer managed key of the bucket (null with AES256)."
  value       = one(aws_kms_key.this[*].arn)
}
