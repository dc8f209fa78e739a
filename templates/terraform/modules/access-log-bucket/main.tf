# Internal module (not a catalog service): the bucket that receives access logs, for the s3
# data bucket (S3 server access logs) and for cloudfront (the distribution's standard logs
# and its origin bucket's server access logs). Private, TLS only, kept for log_retention_days.

locals {
  # CloudFront standard logging writes with an ACL grant, so its bucket keeps ACLs enabled
  # (owner preferred); S3 server access logging only needs the bucket policy below.
  object_ownership = var.cloudfront_logs ? "BucketOwnerPreferred" : "BucketOwnerEnforced"
}

resource "aws_s3_bucket" "this" {
  #checkov:skip=CKV_AWS_18:This is the access log bucket; logging its own access would log forever.
  #checkov:skip=CKV_AWS_144:Cross-region replication of access logs is an account-level DR decision (a second region and role); the logs expire after a year.
  #checkov:skip=CKV_AWS_145:S3 server access logging only delivers to buckets encrypted with S3 managed keys (SSE-S3), not SSE-KMS.
  #checkov:skip=CKV2_AWS_62:Nothing consumes events of the log bucket; add notifications when a log pipeline reads it.
  bucket        = var.name
  force_destroy = var.force_destroy

  tags = var.tags
}

resource "aws_s3_bucket_ownership_controls" "this" {
  #checkov:skip=CKV2_AWS_65:ACLs stay enabled (owner preferred) only for the CloudFront log bucket: CloudFront standard logging delivers with an ACL grant. Public ACLs are blocked below.
  bucket = aws_s3_bucket.this.id

  rule {
    object_ownership = local.object_ownership
  }
}

resource "aws_s3_bucket_public_access_block" "this" {
  bucket = aws_s3_bucket.this.id

  block_public_acls       = true
  block_public_policy     = true
  ignore_public_acls      = true
  restrict_public_buckets = true
}

resource "aws_s3_bucket_versioning" "this" {
  bucket = aws_s3_bucket.this.id

  versioning_configuration {
    status = "Enabled"
  }
}

resource "aws_s3_bucket_server_side_encryption_configuration" "this" {
  bucket = aws_s3_bucket.this.id

  rule {
    apply_server_side_encryption_by_default {
      sse_algorithm = "AES256"
    }
  }
}

resource "aws_s3_bucket_lifecycle_configuration" "this" {
  bucket = aws_s3_bucket.this.id

  rule {
    id     = "expire-logs"
    status = "Enabled"

    filter {}

    expiration {
      days = var.log_retention_days
    }

    noncurrent_version_expiration {
      noncurrent_days = 30
    }

    abort_incomplete_multipart_upload {
      days_after_initiation = 7
    }
  }

  depends_on = [aws_s3_bucket_versioning.this]
}

module "tls_only" {
  source = "../tls-only-policy"

  actions   = ["s3:*"]
  resources = [aws_s3_bucket.this.arn, "${aws_s3_bucket.this.arn}/*"]
}

data "aws_caller_identity" "current" {}

# S3 server access logs of the given buckets, delivered by the logging service.
data "aws_iam_policy_document" "this" {
  override_policy_documents = [module.tls_only.json]

  statement {
    sid       = "S3ServerAccessLogs"
    actions   = ["s3:PutObject"]
    resources = ["${aws_s3_bucket.this.arn}/*"]

    principals {
      type        = "Service"
      identifiers = ["logging.s3.amazonaws.com"]
    }

    condition {
      test     = "StringEquals"
      variable = "aws:SourceAccount"
      values   = [data.aws_caller_identity.current.account_id]
    }
  }
}

resource "aws_s3_bucket_policy" "this" {
  bucket = aws_s3_bucket.this.id
  policy = data.aws_iam_policy_document.this.json

  depends_on = [aws_s3_bucket_public_access_block.this]
}
