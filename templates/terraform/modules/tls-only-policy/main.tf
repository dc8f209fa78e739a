# Internal module (not a catalog service): the statement that refuses every request not
# made over TLS, for the resource policies of s3, sns, sqs and cloudfront. A policy with
# statements of its own adds it with override_policy_documents (appended, same Sid once).

data "aws_iam_policy_document" "this" {
  statement {
    sid       = "DenyInsecureTransport"
    effect    = "Deny"
    actions   = var.actions
    resources = var.resources

    principals {
      type        = "*"
      identifiers = ["*"]
    }

    condition {
      test     = "Bool"
      variable = "aws:SecureTransport"
      values   = ["false"]
    }
  }
}
