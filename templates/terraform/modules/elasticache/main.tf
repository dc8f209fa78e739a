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

module "access" {
  source = "../data-store-access"

  name                = local.identifier
  description         = "Valkey access to ${local.identifier}"
  vpc_id              = var.vpc_id
  allowed_cidr_blocks = var.allowed_cidr_blocks
  port                = local.port
  protocol            = "Valkey"
  kms_key_description = "At-rest encryption of ${local.identifier}"
  tags                = var.tags
}

# The security group, its rules and the key were declared here before ../data-store-access:
# existing state moves to the new addresses, nothing is replaced.
moved {
  from = aws_security_group.this
  to   = module.access.aws_security_group.this
}

moved {
  from = aws_vpc_security_group_ingress_rule.valkey
  to   = module.access.aws_vpc_security_group_ingress_rule.this
}

moved {
  from = aws_kms_key.this
  to   = module.access.aws_kms_key.this
}

# --- Authentication: an AUTH token kept in Secrets Manager --------------------
# Secrets Manager generates the token (an ephemeral value: never in the plan or the state) and
# the secret (KMS) receives it write-only, once (secret_string_wo_version). The replication
# group reads it back from the secret, so the only copies Terraform keeps are the sensitive
# auth_token and that read, in the (encrypted) state. Every client must send it, over TLS;
# clients read the secret (output elasticache_auth_token_secret_arn) with their own IAM rights.

ephemeral "aws_secretsmanager_random_password" "auth_token" {
  password_length     = 64
  exclude_punctuation = true
}

resource "aws_secretsmanager_secret" "auth_token" {
  #checkov:skip=CKV2_AWS_57:Valkey AUTH rotation needs a rotation function that also updates the replication group; rotate by raising secret_string_wo_version (auth_token_update_strategy ROTATE keeps clients connected).
  name_prefix             = "${local.identifier}-auth-token-"
  description             = "AUTH token of the ${local.identifier} Valkey replication group"
  kms_key_id              = module.access.kms_key_arn
  recovery_window_in_days = 7

  tags = var.tags
}

resource "aws_secretsmanager_secret_version" "auth_token" {
  secret_id                = aws_secretsmanager_secret.auth_token.id
  secret_string_wo         = ephemeral.aws_secretsmanager_random_password.auth_token.random_password
  secret_string_wo_version = 1
}

data "aws_secretsmanager_secret_version" "auth_token" {
  secret_id  = aws_secretsmanager_secret.auth_token.id
  version_id = aws_secretsmanager_secret_version.auth_token.version_id
}

resource "aws_cloudwatch_log_group" "slow_log" {
  name              = "/aws/elasticache/${local.identifier}/slow-log"
  retention_in_days = var.log_retention_days
  kms_key_id        = module.access.kms_key_arn

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
  security_group_ids = [module.access.security_group_id]

  at_rest_encryption_enabled = true
  kms_key_id                 = module.access.kms_key_arn
  transit_encryption_enabled = true
  transit_encryption_mode    = "required"
  auth_token                 = data.aws_secretsmanager_secret_version.auth_token.secret_string
  auth_token_update_strategy = "ROTATE"

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
