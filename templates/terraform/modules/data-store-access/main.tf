# Internal module (not a catalog service): the network access and the at-rest key that
# every data store (rds, aurora, elasticache, msk, opensearch) puts in front of its data.
# The calling module keeps what differs: its subnet group, if any, and the store itself.

resource "aws_security_group" "this" {
  name_prefix = "${var.name}-"
  description = var.description
  vpc_id      = var.vpc_id

  tags = merge(var.tags, { Name = var.name })

  lifecycle {
    create_before_destroy = true
  }
}

# One rule per allowed CIDR block, on the store's single client port.
resource "aws_vpc_security_group_ingress_rule" "this" {
  for_each = toset(var.allowed_cidr_blocks)

  security_group_id = aws_security_group.this.id
  description       = "${var.protocol} from ${each.value}"
  cidr_ipv4         = each.value
  ip_protocol       = "tcp"
  from_port         = var.port
  to_port           = var.port
}

module "key_policy" {
  source = "../kms-key-policy"

  allow_cloudwatch_logs = true
}

resource "aws_kms_key" "this" {
  description             = var.kms_key_description
  deletion_window_in_days = 30
  enable_key_rotation     = true
  policy                  = module.key_policy.json

  tags = var.tags
}
