# Internal module (not a catalog service): the explicit key policy of every customer managed
# KMS key. The account administers and uses the key through IAM (the statement AWS would
# write by default, made explicit so it is reviewed with the code); services that encrypt
# for the account without an IAM role of ours get their own statement, limited by an
# encryption context: CloudWatch Logs only for log groups of this account and region, Route53
# DNSSEC signing only for hosted zones of this account.

data "aws_caller_identity" "current" {}
data "aws_partition" "current" {}
data "aws_region" "current" {}

locals {
  account_arn = "arn:${data.aws_partition.current.partition}:iam::${data.aws_caller_identity.current.account_id}:root"
}

data "aws_iam_policy_document" "this" {
  #checkov:skip=CKV_AWS_109:A key policy's "*" resource is the key itself; the account root statement is the AWS default key policy, access is then granted by IAM.
  #checkov:skip=CKV_AWS_111:A key policy's "*" resource is the key itself; write access is limited by the account's IAM policies.
  #checkov:skip=CKV_AWS_356:A key policy's "*" resource is the key itself, not every resource.
  statement {
    sid       = "AccountAdministersAndUsesTheKeyThroughIam"
    actions   = ["kms:*"]
    resources = ["*"]

    principals {
      type        = "AWS"
      identifiers = [local.account_arn]
    }
  }

  dynamic "statement" {
    for_each = var.allow_cloudwatch_logs ? [1] : []

    content {
      sid       = "CloudWatchLogsEncryptsThisAccountsLogGroups"
      actions   = ["kms:Encrypt*", "kms:Decrypt*", "kms:ReEncrypt*", "kms:GenerateDataKey*", "kms:Describe*"]
      resources = ["*"]

      principals {
        type        = "Service"
        identifiers = ["logs.${data.aws_region.current.name}.amazonaws.com"]
      }

      condition {
        test     = "ArnLike"
        variable = "kms:EncryptionContext:aws:logs:arn"
        values   = ["arn:${data.aws_partition.current.partition}:logs:${data.aws_region.current.name}:${data.aws_caller_identity.current.account_id}:log-group:*"]
      }
    }
  }

  dynamic "statement" {
    for_each = var.allow_route53_dnssec ? [1] : []

    content {
      sid       = "Route53SignsThisAccountsZones"
      actions   = ["kms:DescribeKey", "kms:GetPublicKey", "kms:Sign"]
      resources = ["*"]

      principals {
        type        = "Service"
        identifiers = ["dnssec-route53.amazonaws.com"]
      }

      condition {
        test     = "StringEquals"
        variable = "aws:SourceAccount"
        values   = [data.aws_caller_identity.current.account_id]
      }

      condition {
        test     = "ArnLike"
        variable = "aws:SourceArn"
        values   = ["arn:${data.aws_partition.current.partition}:route53:::hostedzone/*"]
      }
    }
  }

  dynamic "statement" {
    for_each = var.allow_route53_dnssec ? [1] : []

    content {
      sid       = "Route53GrantsItselfTheKey"
      actions   = ["kms:CreateGrant"]
      resources = ["*"]

      principals {
        type        = "Service"
        identifiers = ["dnssec-route53.amazonaws.com"]
      }

      condition {
        test     = "Bool"
        variable = "kms:GrantIsForAWSResource"
        values   = ["true"]
      }
    }
  }
}
