data "aws_caller_identity" "current" {}

locals {
  topic_name = "${var.name_prefix}-${var.topic_name}${var.fifo ? ".fifo" : ""}"
}

module "key_policy" {
  source = "../kms-key-policy"
}

resource "aws_kms_key" "this" {
  description             = "Encryption of the ${local.topic_name} topic"
  deletion_window_in_days = 30
  enable_key_rotation     = true
  policy                  = module.key_policy.json

  tags = var.tags
}

resource "aws_sns_topic" "this" {
  name                        = local.topic_name
  fifo_topic                  = var.fifo
  content_based_deduplication = var.fifo
  kms_master_key_id           = aws_kms_key.this.id

  tags = var.tags
}

module "tls_only" {
  source = "../tls-only-policy"

  actions   = ["sns:Publish"]
  resources = [aws_sns_topic.this.arn]
}

# Publishing is limited to this account, over TLS.
data "aws_iam_policy_document" "topic" {
  override_policy_documents = [module.tls_only.json]

  statement {
    sid       = "AccountPublish"
    actions   = ["sns:Publish", "sns:Subscribe"]
    resources = [aws_sns_topic.this.arn]

    principals {
      type        = "AWS"
      identifiers = [data.aws_caller_identity.current.account_id]
    }
  }
}

resource "aws_sns_topic_policy" "this" {
  arn    = aws_sns_topic.this.arn
  policy = data.aws_iam_policy_document.topic.json
}

resource "aws_sns_topic_subscription" "email" {
  # E-mail endpoints are not supported on FIFO topics.
  count = var.alert_email != "" && !var.fifo ? 1 : 0

  topic_arn = aws_sns_topic.this.arn
  protocol  = "email"
  endpoint  = var.alert_email
}
