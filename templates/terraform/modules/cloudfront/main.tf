data "aws_caller_identity" "current" {}

locals {
  name        = "${var.name_prefix}-cdn"
  bucket_name = substr("${var.name_prefix}-cdn-origin-${data.aws_caller_identity.current.account_id}", 0, 63)
  hostname    = var.custom_domain ? "${var.subdomain}.${var.domain}" : ""
}

# --- Private origin bucket, reachable only through the distribution ---------

resource "aws_s3_bucket" "origin" {
  #checkov:skip=CKV_AWS_144:The origin holds web content the deployment pipeline publishes again; cross-region replication is not needed to rebuild it.
  #checkov:skip=CKV_AWS_145:Public web content: encrypted at rest with S3 managed keys (SSE-KMS would need the key policy to trust the distribution and costs a KMS call per cache miss).
  #checkov:skip=CKV2_AWS_62:Nothing consumes events of the origin bucket (CloudFront reads it through origin access control).
  bucket = local.bucket_name

  tags = var.tags
}

resource "aws_s3_bucket_ownership_controls" "origin" {
  bucket = aws_s3_bucket.origin.id

  rule {
    object_ownership = "BucketOwnerEnforced"
  }
}

resource "aws_s3_bucket_public_access_block" "origin" {
  bucket = aws_s3_bucket.origin.id

  block_public_acls       = true
  block_public_policy     = true
  ignore_public_acls      = true
  restrict_public_buckets = true
}

resource "aws_s3_bucket_versioning" "origin" {
  bucket = aws_s3_bucket.origin.id

  versioning_configuration {
    status = "Enabled"
  }
}

resource "aws_s3_bucket_server_side_encryption_configuration" "origin" {
  bucket = aws_s3_bucket.origin.id

  rule {
    apply_server_side_encryption_by_default {
      sse_algorithm = "AES256"
    }
  }
}

resource "aws_s3_bucket_lifecycle_configuration" "origin" {
  bucket = aws_s3_bucket.origin.id

  rule {
    id     = "expire-noncurrent-versions"
    status = "Enabled"

    filter {}

    noncurrent_version_expiration {
      noncurrent_days = 90
    }

    abort_incomplete_multipart_upload {
      days_after_initiation = 7
    }
  }

  depends_on = [aws_s3_bucket_versioning.origin]
}

# --- Access logs: the distribution's standard logs and the origin's server access logs

module "logs" {
  source = "../access-log-bucket"

  name            = substr("${var.name_prefix}-cdn-logs-${data.aws_caller_identity.current.account_id}", 0, 63)
  cloudfront_logs = true
  tags            = var.tags
}

resource "aws_s3_bucket_logging" "origin" {
  bucket        = aws_s3_bucket.origin.id
  target_bucket = module.logs.bucket
  target_prefix = "origin-access/"

  # S3 checks at creation that the target bucket's policy lets logging.s3.amazonaws.com write
  # (InvalidTargetBucketForLogging otherwise): wait for the whole log bucket module, policy included.
  depends_on = [module.logs]
}

resource "aws_cloudfront_origin_access_control" "origin" {
  name                              = local.name
  description                       = "Signed requests from ${local.name} to its origin bucket"
  origin_access_control_origin_type = "s3"
  signing_behavior                  = "always"
  signing_protocol                  = "sigv4"
}

# --- Certificate and DNS for the custom host name ---------------------------

resource "aws_acm_certificate" "this" {
  count    = var.custom_domain ? 1 : 0
  provider = aws.us_east_1

  domain_name       = local.hostname
  validation_method = "DNS"

  tags = merge(var.tags, { Name = local.name })

  lifecycle {
    create_before_destroy = true
  }
}

resource "aws_route53_record" "validation" {
  count = var.custom_domain ? 1 : 0

  zone_id         = var.zone_id
  name            = tolist(aws_acm_certificate.this[0].domain_validation_options)[0].resource_record_name
  type            = tolist(aws_acm_certificate.this[0].domain_validation_options)[0].resource_record_type
  records         = [tolist(aws_acm_certificate.this[0].domain_validation_options)[0].resource_record_value]
  ttl             = 300
  allow_overwrite = true
}

resource "aws_acm_certificate_validation" "this" {
  count    = var.custom_domain ? 1 : 0
  provider = aws.us_east_1

  certificate_arn         = aws_acm_certificate.this[0].arn
  validation_record_fqdns = [aws_route53_record.validation[0].fqdn]
}

# --- Distribution -----------------------------------------------------------

resource "aws_cloudfront_distribution" "this" {
  #checkov:skip=CKV_AWS_174:With a domain (route53 and domain set) the minimum is TLSv1.2_2021. Without one, the distribution answers on *.cloudfront.net, where AWS fixes the policy at TLSv1 whatever is set (any other value is a perpetual diff).
  #checkov:skip=CKV_AWS_310:One S3 origin; an origin group needs a second, replicated bucket.
  #checkov:skip=CKV_AWS_374:No geo restriction by default: who may be served is the application's decision (add restrictions here or in the WAF).
  #checkov:skip=CKV2_AWS_32:The response headers policy is the AWS managed SecurityHeadersPolicy, referenced by its ID.
  #checkov:skip=CKV2_AWS_47:The web ACL comes from the waf service (web_acl_arn) with AWSManagedRulesKnownBadInputsRuleSet, Log4JRCE included.
  enabled             = true
  is_ipv6_enabled     = true
  http_version        = "http2and3"
  comment             = local.name
  price_class         = var.price_class
  default_root_object = var.default_root_object
  web_acl_id          = var.web_acl_arn
  aliases             = var.custom_domain ? [local.hostname] : []

  origin {
    origin_id                = "s3-origin"
    domain_name              = aws_s3_bucket.origin.bucket_regional_domain_name
    origin_access_control_id = aws_cloudfront_origin_access_control.origin.id
  }

  default_cache_behavior {
    target_origin_id       = "s3-origin"
    viewer_protocol_policy = "redirect-to-https"
    allowed_methods        = ["GET", "HEAD", "OPTIONS"]
    cached_methods         = ["GET", "HEAD"]
    compress               = true

    # Managed policies: CachingOptimized and SecurityHeadersPolicy.
    cache_policy_id            = "658327ea-f89d-4fab-a63d-7e88639e58f6"
    response_headers_policy_id = "67f7725c-6f97-4210-82d7-5512b31e9d03"
  }

  logging_config {
    bucket          = module.logs.bucket_domain_name
    prefix          = "cloudfront/"
    include_cookies = false
  }

  restrictions {
    geo_restriction {
      restriction_type = "none"
    }
  }

  viewer_certificate {
    cloudfront_default_certificate = !var.custom_domain
    acm_certificate_arn            = var.custom_domain ? aws_acm_certificate_validation.this[0].certificate_arn : null
    ssl_support_method             = var.custom_domain ? "sni-only" : null
    minimum_protocol_version       = var.custom_domain ? "TLSv1.2_2021" : "TLSv1"
  }

  tags = var.tags
}

module "tls_only" {
  source = "../tls-only-policy"

  actions   = ["s3:*"]
  resources = [aws_s3_bucket.origin.arn, "${aws_s3_bucket.origin.arn}/*"]
}

# Reads by this distribution only, over TLS.
data "aws_iam_policy_document" "origin" {
  override_policy_documents = [module.tls_only.json]

  statement {
    sid       = "CloudFrontRead"
    actions   = ["s3:GetObject"]
    resources = ["${aws_s3_bucket.origin.arn}/*"]

    principals {
      type        = "Service"
      identifiers = ["cloudfront.amazonaws.com"]
    }

    condition {
      test     = "StringEquals"
      variable = "AWS:SourceArn"
      values   = [aws_cloudfront_distribution.this.arn]
    }
  }
}

resource "aws_s3_bucket_policy" "origin" {
  bucket = aws_s3_bucket.origin.id
  policy = data.aws_iam_policy_document.origin.json

  depends_on = [aws_s3_bucket_public_access_block.origin]
}

resource "aws_route53_record" "alias" {
  for_each = var.custom_domain ? toset(["A", "AAAA"]) : toset([])

  zone_id = var.zone_id
  name    = local.hostname
  type    = each.value

  alias {
    name                   = aws_cloudfront_distribution.this.domain_name
    zone_id                = aws_cloudfront_distribution.this.hosted_zone_id
    evaluate_target_health = false
  }
}
