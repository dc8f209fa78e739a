output "bucket" {
  description = "Name of the log bucket (target_bucket of S3 server access logging)."
  value       = aws_s3_bucket.this.id
}

output "bucket_domain_name" {
  description = "Domain name of the log bucket (logging_config.bucket of a CloudFront distribution)."
  value       = aws_s3_bucket.this.bucket_domain_name

  depends_on = [aws_s3_bucket_ownership_controls.this, aws_s3_bucket_policy.this]
}
