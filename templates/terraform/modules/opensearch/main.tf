data "aws_caller_identity" "current" {}

data "aws_region" "current" {}

data "aws_partition" "current" {}

locals {
  # Domain names are 3 to 28 lowercase characters.
  domain_name    = trimsuffix(substr("${var.name_prefix}-search", 0, 28), "-")
  zone_awareness = var.instance_count > 1
  subnet_ids     = slice(var.subnet_ids, 0, local.zone_awareness ? 2 : 1)
  # Published logs; AUDIT_LOGS needs fine-grained access control, which the domain has.
  log_types  = toset(["INDEX_SLOW_LOGS", "SEARCH_SLOW_LOGS", "ES_APPLICATION_LOGS", "AUDIT_LOGS"])
  domain_arn = "arn:${data.aws_partition.current.partition}:es:${data.aws_region.current.name}:${data.aws_caller_identity.current.account_id}:domain/${local.domain_name}"
}

module "access" {
  source = "../data-store-access"

  name                = local.domain_name
  description         = "HTTPS access to the ${local.domain_name} OpenSearch domain"
  vpc_id              = var.vpc_id
  allowed_cidr_blocks = var.allowed_cidr_blocks
  port                = 443
  protocol            = "HTTPS"
  kms_key_description = "At-rest encryption of ${local.domain_name}"
  tags                = var.tags
}

# The security group, its rules and the key were declared here before ../data-store-access:
# existing state moves to the new addresses, nothing is replaced.
moved {
  from = aws_security_group.this
  to   = module.access.aws_security_group.this
}

moved {
  from = aws_vpc_security_group_ingress_rule.https
  to   = module.access.aws_vpc_security_group_ingress_rule.this
}

moved {
  from = aws_kms_key.this
  to   = module.access.aws_kms_key.this
}

resource "aws_cloudwatch_log_group" "this" {
  for_each = local.log_types

  name              = "/aws/opensearch/${local.domain_name}/${lower(each.value)}"
  retention_in_days = var.log_retention_days
  kms_key_id        = module.access.kms_key_arn

  tags = var.tags
}

data "aws_iam_policy_document" "logs" {
  statement {
    actions   = ["logs:PutLogEvents", "logs:CreateLogStream"]
    resources = [for group in aws_cloudwatch_log_group.this : "${group.arn}:*"]

    principals {
      type        = "Service"
      identifiers = ["es.amazonaws.com"]
    }
  }
}

resource "aws_cloudwatch_log_resource_policy" "this" {
  policy_name     = "${local.domain_name}-logs"
  policy_document = data.aws_iam_policy_document.logs.json
}

# Only principals of this account, and only through the VPC.
data "aws_iam_policy_document" "access" {
  statement {
    actions   = ["es:ESHttp*"]
    resources = ["${local.domain_arn}/*"]

    principals {
      type        = "AWS"
      identifiers = ["arn:${data.aws_partition.current.partition}:iam::${data.aws_caller_identity.current.account_id}:root"]
    }
  }
}

resource "aws_opensearch_domain" "this" {
  #checkov:skip=CKV_AWS_318:Dedicated master nodes (three more instances) pay off for large production domains; the instanceType and instanceCount knobs size a small one.
  #checkov:skip=CKV2_AWS_59:Dedicated master nodes: see CKV_AWS_318.
  domain_name     = local.domain_name
  engine_version  = var.engine_version
  access_policies = data.aws_iam_policy_document.access.json

  cluster_config {
    instance_type          = var.instance_type
    instance_count         = var.instance_count
    zone_awareness_enabled = local.zone_awareness

    dynamic "zone_awareness_config" {
      for_each = local.zone_awareness ? [1] : []

      content {
        availability_zone_count = 2
      }
    }
  }

  ebs_options {
    ebs_enabled = true
    volume_type = "gp3"
    volume_size = var.ebs_volume_size
  }

  vpc_options {
    subnet_ids         = local.subnet_ids
    security_group_ids = [module.access.security_group_id]
  }

  encrypt_at_rest {
    enabled    = true
    kms_key_id = module.access.kms_key_arn
  }

  node_to_node_encryption {
    enabled = true
  }

  domain_endpoint_options {
    enforce_https       = true
    tls_security_policy = "Policy-Min-TLS-1-2-2019-07"
  }

  advanced_security_options {
    enabled                        = true
    anonymous_auth_enabled         = false
    internal_user_database_enabled = false

    master_user_options {
      master_user_arn = "arn:${data.aws_partition.current.partition}:iam::${data.aws_caller_identity.current.account_id}:root"
    }
  }

  dynamic "log_publishing_options" {
    for_each = setsubtract(local.log_types, ["AUDIT_LOGS"])

    content {
      enabled                  = true
      log_type                 = log_publishing_options.value
      cloudwatch_log_group_arn = aws_cloudwatch_log_group.this[log_publishing_options.value].arn
    }
  }

  # Audit logs (who read or changed what), spelled out so that scanners see them.
  log_publishing_options {
    enabled                  = true
    log_type                 = "AUDIT_LOGS"
    cloudwatch_log_group_arn = aws_cloudwatch_log_group.this["AUDIT_LOGS"].arn
  }

  tags = var.tags

  depends_on = [aws_cloudwatch_log_resource_policy.this]
}
