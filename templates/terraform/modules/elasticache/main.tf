locals {
  # Replication group identifiers are limited to 40 characters.
  identifier = trimsuffix(substr("${var.name_prefix}-cache", 0, 40), "-")
  port       = 6379
  failover   = var.num_cache_clusters > 1
}

resource "aws_elasticache_subnet_group" "this" {
  name       = local.identifier
  subnet_ids = var.subnet_ids

  tags = var.tags
}

resource "aws_security_group" "this" {
  name_prefix = "${local.identifier}-"
  description = "Valkey access to ${local.identifier}"
  vpc_id      = var.vpc_id

  tags = merge(var.tags, { Name = local.identifier })

  lifecycle {
    create_before_destroy = true
  }
}

resource "aws_vpc_security_group_ingress_rule" "valkey" {
  for_each = toset(var.allowed_cidr_blocks)

  security_group_id = aws_security_group.this.id
  description       = "Valkey from ${each.value}"
  cidr_ipv4         = each.value
  ip_protocol       = "tcp"
  from_port         = local.port
  to_port           = local.port
}

resource "aws_kms_key" "this" {
  description             = "At-rest encryption of ${local.identifier}"
  deletion_window_in_days = 30
  enable_key_rotation     = true

  tags = var.tags
}

resource "aws_cloudwatch_log_group" "slow_log" {
  name              = "/aws/elasticache/${local.identifier}/slow-log"
  retention_in_days = 30

  tags = var.tags
}

resource "aws_elasticache_replication_group" "this" {
  replication_group_id = local.identifier
  description          = "Valkey for ${var.name_prefix}"
  engine               = "valkey"
  engine_version       = var.engine_version
  node_type            = var.node_type
  port                 = local.port
  num_cache_clusters   = var.num_cache_clusters

  automatic_failover_enabled = local.failover
  multi_az_enabled           = local.failover

  subnet_group_name  = aws_elasticache_subnet_group.this.name
  security_group_ids = [aws_security_group.this.id]

  at_rest_encryption_enabled = true
  kms_key_id                 = aws_kms_key.this.arn
  transit_encryption_enabled = true
  transit_encryption_mode    = "required"

  snapshot_retention_limit   = var.snapshot_retention_days
  snapshot_window            = "01:00-02:00"
  maintenance_window         = "sun:04:30-sun:05:30"
  auto_minor_version_upgrade = true
  apply_immediately          = false

  log_delivery_configuration {
    destination      = aws_cloudwatch_log_group.slow_log.name
    destination_type = "cloudwatch-logs"
    log_format       = "json"
    log_type         = "slow-log"
  }

  tags = var.tags
}
