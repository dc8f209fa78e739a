locals {
  cluster_name = "${var.name_prefix}-kafka"
  # MSK spreads brokers evenly across at most three client subnets.
  subnet_ids = slice(var.subnet_ids, 0, min(3, length(var.subnet_ids)))
}

module "access" {
  source = "../data-store-access"

  name                = local.cluster_name
  description         = "Kafka client access to ${local.cluster_name} (TLS and IAM)"
  vpc_id              = var.vpc_id
  allowed_cidr_blocks = var.allowed_cidr_blocks
  port                = 9098
  protocol            = "Kafka (TLS, IAM auth)"
  kms_key_description = "At-rest encryption of ${local.cluster_name}"
  tags                = var.tags
}

# The security group, its rules and the key were declared here before ../data-store-access:
# existing state moves to the new addresses, nothing is replaced.
moved {
  from = aws_security_group.this
  to   = module.access.aws_security_group.this
}

moved {
  from = aws_vpc_security_group_ingress_rule.kafka_iam
  to   = module.access.aws_vpc_security_group_ingress_rule.this
}

moved {
  from = aws_kms_key.this
  to   = module.access.aws_kms_key.this
}

resource "aws_cloudwatch_log_group" "broker" {
  name              = "/aws/msk/${local.cluster_name}"
  retention_in_days = var.log_retention_days
  kms_key_id        = module.access.kms_key_arn

  tags = var.tags
}

resource "aws_msk_cluster" "this" {
  cluster_name           = local.cluster_name
  kafka_version          = var.kafka_version
  number_of_broker_nodes = var.brokers_per_az * length(local.subnet_ids)

  broker_node_group_info {
    instance_type   = var.broker_instance_type
    client_subnets  = local.subnet_ids
    security_groups = [module.access.security_group_id]

    storage_info {
      ebs_storage_info {
        volume_size = var.ebs_volume_size
      }
    }
  }

  client_authentication {
    sasl {
      iam = true
    }

    unauthenticated = false
  }

  encryption_info {
    encryption_at_rest_kms_key_arn = module.access.kms_key_arn

    encryption_in_transit {
      client_broker = "TLS"
      in_cluster    = true
    }
  }

  enhanced_monitoring = "PER_BROKER"

  logging_info {
    broker_logs {
      cloudwatch_logs {
        enabled   = true
        log_group = aws_cloudwatch_log_group.broker.name
      }
    }
  }

  tags = var.tags
}
