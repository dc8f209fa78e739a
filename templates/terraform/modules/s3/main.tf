data "aws_caller_identity" "current" {}

locals {
  bucket_name = substr("${var.name_prefix}-${var.bucket_suffix}-${data.aws_caller_identity.current.account_id}", 0, 63)
  use_kms     = var.encryption == "aws:kms"
}

module "key_policy" {
  source = "../kms-key-policy"
}

resource "aws_kms_key" "this" {
  count = local.use_kms ? 1 : 0

  description             = "Encryption of the ${local.bucket_name} bucket"
  deletion_window_in_days = 30
  enable_key_rotation     = true
  policy                  = module.key_policy.json

  tags = var.tags
}

resource "aws_s3_bucket" "this" {
  #checkov:skip=CKV_AWS_144:Cross-region replication needs a second region and bucket; it is a disaster-recovery decision per dataset, not a default.
  #checkov:skip=CKV2_AWS_62:Event notifications need a consumer (queue, topic or function) that the data bucket does not have by default.
  bucket        = local.bucket_name
  force_destroy = var.force_destroy

  tags = var.tags
}

resource "aws_s3_bucket_ownership_controls" "this" {
  bucket = aws_s3_bucket.this.id

  rule {
    object_ownership = "BucketOwnerEnforced"
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
    status = var.versioning ? "Enabled" : "Suspended"
  }
}

resource "aws_s3_bucket_server_side_encryption_configuration" "this" {
  bucket = aws_s3_bucket.this.id

  rule {
    apply_server_side_encryption_by_default {
      sse_algorithm     = var.encryption
      kms_master_key_id = local.use_kms ? aws_kms_key.this[0].arn : null
    }

    bucket_key_enabled = local.use_kms
  }
}

resource "aws_s3_bucket_lifecycle_configuration" "this" {
  bucket = aws_s3_bucket.this.id

  rule {
    id     = "expire-noncurrent-versions"
    status = "Enabled"

    filter {}

    noncurrent_version_expiration {
      noncurrent_days = var.noncurrent_version_expiration_days
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

resource "aws_s3_bucket_policy" "this" {
  bucket = aws_s3_bucket.this.id
  policy = module.tls_only.json

  depends_on = [aws_s3_bucket_public_access_block.this]
}

# --- Server access logs ------------------------------------------------------

module "logs" {
  source = "../access-log-bucket"

  name          = substr("${var.name_prefix}-${var.bucket_suffix}-logs-${data.aws_caller_identity.current.account_id}", 0, 63)
  force_destroy = var.force_destroy
  tags          = var.tags
}

resource "aws_s3_bucket_logging" "this" {
  bucket        = aws_s3_bucket.this.id
  target_bucket = module.logs.bucket
  target_prefix = "s3-access/"

  # S3 checks at creation that the target bucket's policy lets logging.s3.amazonaws.com write
  # (InvalidTargetBucketForLogging otherwise): wait for the whole log bucket module, policy included.
  depends_on = [module.logs]
}
