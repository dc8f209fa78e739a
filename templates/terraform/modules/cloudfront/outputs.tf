output "distribution_id" {
  description = "ID of the distribution (for cache invalidations)."
  value       = aws_cloudfront_distribution.this.id
}

output "distribution_domain_name" {
  description = "CloudFront host name of the distribution."
  value       = aws_cloudfront_distribution.this.domain_name
}

output "url" {
  description = "Public URL of the distribution."
  value       = "https://${var.custom_domain ? local.hostname : aws_cloudfront_distribution.this.domain_name}"
}

output "origin_bucket_name" {
  description = "Private bucket the distribution serves from."
  value       = aws_s3_bucket.origin.id
}
