locals {
  identifier = "${var.name_prefix}-postgres"
  port       = 5432
}

resource "aws_db_subnet_group" "this" {
  name       = local.identifier
  subnet_ids = var.subnet_ids

  tags = var.tags
}

module "access" {
  source = "../data-store-access"

  name                = local.identifier
  description         = "PostgreSQL access to ${local.identifier}"
  vpc_id              = var.vpc_id
  allowed_cidr_blocks = var.allowed_cidr_blocks
  port                = local.port
  protocol            = "PostgreSQL"
  kms_key_description = "Storage encryption of ${local.identifier}"
  tags                = var.tags
}

# The security group, its rules and the key were declared here before ../data-store-access:
# existing state moves to the new addresses, nothing is replaced.
moved {
  from = aws_security_group.this
  to   = module.access.aws_security_group.this
}

moved {
  from = aws_vpc_security_group_ingress_rule.postgres
  to   = module.access.aws_vpc_security_group_ingress_rule.this
}

moved {
  from = aws_kms_key.this
  to   = module.access.aws_kms_key.this
}

resource "aws_db_parameter_group" "this" {
  name_prefix = "${local.identifier}-"
  family      = "postgres${split(".", var.engine_version)[0]}"
  description = "Parameters of ${local.identifier}"

  parameter {
    name  = "rds.force_ssl"
    value = "1"
  }

  parameter {
    name  = "log_statement"
    value = "ddl"
  }

  parameter {
    name  = "log_min_duration_statement"
    value = "1000"
  }

  tags = var.tags

  lifecycle {
    create_before_destroy = true
  }
}

module "monitoring" {
  source = "../rds-monitoring-role"

  name = "${local.identifier}-monitoring"
  tags = var.tags
}

# The role was declared here before ../rds-monitoring-role: state moves, nothing is replaced.
moved {
  from = aws_iam_role.monitoring
  to   = module.monitoring.aws_iam_role.this
}

moved {
  from = aws_iam_role_policy_attachment.monitoring
  to   = module.monitoring.aws_iam_role_policy_attachment.this
}

resource "aws_db_instance" "this" {
  #checkov:skip=CKV_AWS_157:Multi-AZ is the multiAz knob, off by default for cost (a standby doubles the price); turn it on for production.
  identifier     = local.identifier
  engine         = "postgres"
  engine_version = var.engine_version
  instance_class = var.instance_class
  port           = local.port

  db_name                             = var.database_name
  username                            = var.master_username
  manage_master_user_password         = true
  iam_database_authentication_enabled = true

  allocated_storage     = var.allocated_storage
  max_allocated_storage = var.max_allocated_storage
  storage_type          = "gp3"
  storage_encrypted     = true
  kms_key_id            = module.access.kms_key_arn

  db_subnet_group_name   = aws_db_subnet_group.this.name
  vpc_security_group_ids = [module.access.security_group_id]
  parameter_group_name   = aws_db_parameter_group.this.name
  publicly_accessible    = false
  multi_az               = var.multi_az

  backup_retention_period   = var.backup_retention_days
  backup_window             = "02:00-03:00"
  maintenance_window        = "sun:03:30-sun:04:30"
  copy_tags_to_snapshot     = true
  deletion_protection       = var.deletion_protection
  skip_final_snapshot       = false
  final_snapshot_identifier = "${local.identifier}-final"

  auto_minor_version_upgrade      = true
  enabled_cloudwatch_logs_exports = ["postgresql", "upgrade"]
  performance_insights_enabled    = true
  performance_insights_kms_key_id = module.access.kms_key_arn
  monitoring_interval             = 60
  monitoring_role_arn             = module.monitoring.arn

  tags = var.tags
}
