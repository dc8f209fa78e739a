locals {
  cluster_name = "${var.name_prefix}-kafka"
  # MSK spreads brokers evenly across at most three client subnets.
  subnet_ids = slice(var.subnet_ids, 0, min(3, length(var.subnet_ids)))
}

resource "aws_security_group" "this" {
  name_prefix = "${local.cluster_name}-"
  description = "Kafka client access to ${local.cluster_name} (TLS and IAM)"
  vpc_id      = var.vpc_id

  tags = merge(var.tags, { Name = local.cluster_name })

  lifecycle {
    create_before_destroy = true
  }
}

resource "aws_vpc_security_group_ingress_rule" "kafka_iam" {
  for_each = toset(var.allowed_cidr_blocks)

  security_group_id = aws_security_group.this.id
  description       = "Kafka (TLS, IAM auth) from ${each.value}"
  cidr_ipv4         = each.value
  ip_protocol       = "tcp"
  from_port         = 9098
  to_port           = 9098
}

resource "aws_kms_key" "this" {
  description             = "At-rest encryption of ${local.cluster_name}"
  deletion_window_in_days = 30
  enable_key_rotation     = true

  tags = var.tags
}

resource "aws_cloudwatch_log_group" "broker" {
  name              = "/aws/msk/${local.cluster_name}"
  retention_in_days = var.log_retention_days

  tags = var.tags
}

resource "aws_msk_cluster" "this" {
  cluster_name           = local.cluster_name
  kafka_version          = var.kafka_version
  number_of_broker_nodes = var.brokers_per_az * length(local.subnet_ids)

  broker_node_group_info {
    instance_type   = var.broker_instance_type
    client_subnets  = local.subnet_ids
    security_groups = [aws_security_group.this.id]

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
    encryption_at_rest_kms_key_arn = aws_kms_key.this.arn

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
