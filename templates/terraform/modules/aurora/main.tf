locals {
  identifier = "${var.name_prefix}-aurora"
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

# TLS required; DDL statements and statements slower than a second are logged (exported to
# CloudWatch Logs with the cluster's postgresql log).
resource "aws_rds_cluster_parameter_group" "this" {
  name_prefix = "${local.identifier}-"
  family      = "aurora-postgresql${split(".", var.engine_version)[0]}"
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

resource "aws_rds_cluster" "this" {
  #checkov:skip=CKV2_AWS_8:Backups are the cluster's automated backups (backupRetentionDays knob, point-in-time recovery); an AWS Backup plan is an account-wide decision outside this stack.
  cluster_identifier = local.identifier
  engine             = "aurora-postgresql"
  engine_mode        = "provisioned"
  engine_version     = var.engine_version
  port               = local.port

  database_name               = var.database_name
  master_username             = var.master_username
  manage_master_user_password = true

  db_subnet_group_name            = aws_db_subnet_group.this.name
  vpc_security_group_ids          = [module.access.security_group_id]
  db_cluster_parameter_group_name = aws_rds_cluster_parameter_group.this.name

  storage_encrypted = true
  kms_key_id        = module.access.kms_key_arn

  iam_database_authentication_enabled = true
  enabled_cloudwatch_logs_exports     = ["postgresql"]

  backup_retention_period      = var.backup_retention_days
  preferred_backup_window      = "02:00-03:00"
  preferred_maintenance_window = "sun:03:30-sun:04:30"
  copy_tags_to_snapshot        = true
  deletion_protection          = var.deletion_protection
  skip_final_snapshot          = false
  final_snapshot_identifier    = "${local.identifier}-final"

  serverlessv2_scaling_configuration {
    min_capacity = var.min_capacity
    max_capacity = var.max_capacity
  }

  tags = var.tags
}

resource "aws_rds_cluster_instance" "this" {
  count = var.instance_count

  identifier         = "${local.identifier}-${count.index}"
  cluster_identifier = aws_rds_cluster.this.id
  engine             = aws_rds_cluster.this.engine
  engine_version     = aws_rds_cluster.this.engine_version
  instance_class     = "db.serverless"

  db_subnet_group_name            = aws_db_subnet_group.this.name
  publicly_accessible             = false
  auto_minor_version_upgrade      = true
  performance_insights_enabled    = true
  performance_insights_kms_key_id = module.access.kms_key_arn
  monitoring_interval             = 60
  monitoring_role_arn             = module.monitoring.arn

  tags = var.tags
}
