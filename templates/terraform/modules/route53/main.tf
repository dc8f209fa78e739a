locals {
  create      = var.domain != ""
  certificate = local.create && var.wildcard_certificate
  query_logs  = local.create && var.query_logging
  dnssec      = local.create && var.dnssec
}

resource "aws_route53_zone" "this" {
  count = local.create ? 1 : 0

  name          = var.domain
  comment       = "Environment ${var.name_prefix}, managed by Terraform"
  force_destroy = var.force_destroy

  tags = var.tags
}

# Only Amazon may issue certificates for the domain.
resource "aws_route53_record" "caa" {
  count = local.create ? 1 : 0

  zone_id = aws_route53_zone.this[0].zone_id
  name    = var.domain
  type    = "CAA"
  ttl     = 3600
  records = ["0 issue \"amazon.com\"", "0 issuewild \"amazon.com\""]
}

resource "aws_acm_certificate" "wildcard" {
  count = local.certificate ? 1 : 0

  domain_name               = var.domain
  subject_alternative_names = ["*.${var.domain}"]
  validation_method         = "DNS"

  tags = merge(var.tags, { Name = "${var.name_prefix}-wildcard" })

  lifecycle {
    create_before_destroy = true
  }
}

resource "aws_route53_record" "validation" {
  # The apex and the wildcard share one validation record.
  count = local.certificate ? 1 : 0

  zone_id         = aws_route53_zone.this[0].zone_id
  name            = tolist(aws_acm_certificate.wildcard[0].domain_validation_options)[0].resource_record_name
  type            = tolist(aws_acm_certificate.wildcard[0].domain_validation_options)[0].resource_record_type
  records         = [tolist(aws_acm_certificate.wildcard[0].domain_validation_options)[0].resource_record_value]
  ttl             = 300
  allow_overwrite = true
}

resource "aws_acm_certificate_validation" "wildcard" {
  count = local.certificate ? 1 : 0

  certificate_arn         = aws_acm_certificate.wildcard[0].arn
  validation_record_fqdns = [aws_route53_record.validation[0].fqdn]
}

# --- Query logging -------------------------------------------------------------
# Route53 writes query logs to CloudWatch Logs in us-east-1 only.

module "query_logs_key_policy" {
  count  = local.query_logs ? 1 : 0
  source = "../kms-key-policy"

  providers = {
    aws = aws.us_east_1
  }

  allow_cloudwatch_logs = true
}

resource "aws_kms_key" "query_logs" {
  count    = local.query_logs ? 1 : 0
  provider = aws.us_east_1

  description             = "Encryption of the ${var.domain} DNS query logs"
  deletion_window_in_days = 30
  enable_key_rotation     = true
  policy                  = module.query_logs_key_policy[0].json

  tags = var.tags
}

resource "aws_cloudwatch_log_group" "query_logs" {
  count    = local.query_logs ? 1 : 0
  provider = aws.us_east_1

  name              = "/aws/route53/${var.domain}"
  retention_in_days = var.log_retention_days
  kms_key_id        = aws_kms_key.query_logs[0].arn

  tags = var.tags
}

data "aws_iam_policy_document" "query_logs" {
  count = local.query_logs ? 1 : 0

  statement {
    actions   = ["logs:CreateLogStream", "logs:PutLogEvents"]
    resources = ["${aws_cloudwatch_log_group.query_logs[0].arn}:*"]

    principals {
      type        = "Service"
      identifiers = ["route53.amazonaws.com"]
    }
  }
}

resource "aws_cloudwatch_log_resource_policy" "query_logs" {
  count    = local.query_logs ? 1 : 0
  provider = aws.us_east_1

  policy_name     = "${var.name_prefix}-route53-query-logs"
  policy_document = data.aws_iam_policy_document.query_logs[0].json
}

resource "aws_route53_query_log" "this" {
  count = local.query_logs ? 1 : 0

  zone_id                  = aws_route53_zone.this[0].zone_id
  cloudwatch_log_group_arn = aws_cloudwatch_log_group.query_logs[0].arn

  depends_on = [aws_cloudwatch_log_resource_policy.query_logs]
}

# --- DNSSEC (option) -------------------------------------------------------------
# Signing protects resolvers only once the DS record (output route53_dnssec_ds_record) is
# added at the registrar or parent zone; remove it there before turning signing off.

module "dnssec_key_policy" {
  count  = local.dnssec ? 1 : 0
  source = "../kms-key-policy"

  providers = {
    aws = aws.us_east_1
  }

  allow_route53_dnssec = true
}

resource "aws_kms_key" "dnssec" {
  #checkov:skip=CKV_AWS_7:An asymmetric signing key cannot rotate automatically; rotate the key signing key in Route53 instead.
  count    = local.dnssec ? 1 : 0
  provider = aws.us_east_1

  description              = "DNSSEC key signing key of ${var.domain}"
  customer_master_key_spec = "ECC_NIST_P256"
  key_usage                = "SIGN_VERIFY"
  deletion_window_in_days  = 30
  policy                   = module.dnssec_key_policy[0].json

  tags = var.tags
}

resource "aws_route53_key_signing_key" "this" {
  count = local.dnssec ? 1 : 0

  name                       = "ksk"
  hosted_zone_id             = aws_route53_zone.this[0].id
  key_management_service_arn = aws_kms_key.dnssec[0].arn
}

resource "aws_route53_hosted_zone_dnssec" "this" {
  count = local.dnssec ? 1 : 0

  hosted_zone_id = aws_route53_key_signing_key.this[0].hosted_zone_id
}
