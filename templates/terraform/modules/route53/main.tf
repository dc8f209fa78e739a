locals {
  create      = var.domain != ""
  certificate = local.create && var.wildcard_certificate
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
