# One module per catalog service. Each instantiation is gated by its
# "@section services.<key>.enabled" region: a disabled service is commented out, line
# numbers kept. Cross-service inputs come from locals (wiring.tf) that stay valid when
# the providing service is disabled.

# @section services.vpc.enabled begin
module "vpc" {
  source = "./modules/vpc"

  name_prefix             = local.name_prefix
  cidr_block              = var.vpc_cidr
  az_count                = var.vpc_az_count
  single_nat_gateway      = var.vpc_single_nat_gateway
  enable_flow_logs        = var.vpc_enable_flow_logs
  flow_log_retention_days = var.vpc_flow_log_retention_days
  cluster_name            = local.eks_cluster_name
  tags                    = local.tags
}
# @section services.vpc.enabled end

# @section services.eks.enabled begin
module "eks" {
  source = "./modules/eks"

  name_prefix            = local.name_prefix
  vpc_id                 = local.vpc_id
  subnet_ids             = local.private_subnet_ids
  kubernetes_version     = var.eks_kubernetes_version
  endpoint_public_access = var.eks_endpoint_public_access
  public_access_cidrs    = compact(split(",", replace(var.eks_public_access_cidrs, " ", "")))
  node_instance_type     = var.eks_node_instance_type
  node_capacity_type     = var.eks_node_capacity_type
  node_min_size          = var.eks_node_min_size
  node_max_size          = var.eks_node_max_size
  node_desired_size      = var.eks_node_desired_size
  node_disk_size         = var.eks_node_disk_size
  tags                   = local.tags
}
# @section services.eks.enabled end

# @section services.rds.enabled begin
module "rds" {
  source = "./modules/rds"

  name_prefix           = local.name_prefix
  vpc_id                = local.vpc_id
  subnet_ids            = local.private_subnet_ids
  allowed_cidr_blocks   = local.allowed_cidr_blocks
  engine_version        = var.rds_engine_version
  instance_class        = var.rds_instance_class
  allocated_storage     = var.rds_allocated_storage
  max_allocated_storage = var.rds_max_allocated_storage
  multi_az              = var.rds_multi_az
  backup_retention_days = var.rds_backup_retention_days
  deletion_protection   = var.rds_deletion_protection
  tags                  = local.tags
}
# @section services.rds.enabled end

# @section services.aurora.enabled begin
module "aurora" {
  source = "./modules/aurora"

  name_prefix           = local.name_prefix
  vpc_id                = local.vpc_id
  subnet_ids            = local.private_subnet_ids
  allowed_cidr_blocks   = local.allowed_cidr_blocks
  engine_version        = var.aurora_engine_version
  instance_count        = var.aurora_instance_count
  min_capacity          = var.aurora_min_capacity
  max_capacity          = var.aurora_max_capacity
  backup_retention_days = var.aurora_backup_retention_days
  deletion_protection   = var.aurora_deletion_protection
  tags                  = local.tags
}
# @section services.aurora.enabled end

# @section services.elasticache.enabled begin
module "elasticache" {
  source = "./modules/elasticache"

  name_prefix             = local.name_prefix
  vpc_id                  = local.vpc_id
  subnet_ids              = local.private_subnet_ids
  allowed_cidr_blocks     = local.allowed_cidr_blocks
  engine_version          = var.elasticache_engine_version
  node_type               = var.elasticache_node_type
  num_cache_clusters      = var.elasticache_num_cache_clusters
  snapshot_retention_days = var.elasticache_snapshot_retention_days
  tags                    = local.tags
}
# @section services.elasticache.enabled end

# @section services.msk.enabled begin
module "msk" {
  source = "./modules/msk"

  name_prefix          = local.name_prefix
  vpc_id               = local.vpc_id
  subnet_ids           = local.private_subnet_ids
  allowed_cidr_blocks  = local.allowed_cidr_blocks
  kafka_version        = var.msk_kafka_version
  broker_instance_type = var.msk_broker_instance_type
  brokers_per_az       = var.msk_brokers_per_az
  ebs_volume_size      = var.msk_ebs_volume_size
  tags                 = local.tags
}
# @section services.msk.enabled end

# @section services.opensearch.enabled begin
module "opensearch" {
  source = "./modules/opensearch"

  name_prefix         = local.name_prefix
  vpc_id              = local.vpc_id
  subnet_ids          = local.private_subnet_ids
  allowed_cidr_blocks = local.allowed_cidr_blocks
  engine_version      = var.opensearch_engine_version
  instance_type       = var.opensearch_instance_type
  instance_count      = var.opensearch_instance_count
  ebs_volume_size     = var.opensearch_ebs_volume_size
  tags                = local.tags
}
# @section services.opensearch.enabled end

# @section services.s3.enabled begin
module "s3" {
  source = "./modules/s3"

  name_prefix                        = local.name_prefix
  bucket_suffix                      = var.s3_bucket_suffix
  versioning                         = var.s3_versioning
  encryption                         = var.s3_encryption
  noncurrent_version_expiration_days = var.s3_noncurrent_version_expiration_days
  force_destroy                      = var.s3_force_destroy
  tags                               = local.tags
}
# @section services.s3.enabled end

# @section services.sns.enabled begin
module "sns" {
  source = "./modules/sns"

  name_prefix = local.name_prefix
  topic_name  = var.sns_topic_name
  fifo        = var.sns_fifo
  alert_email = var.sns_alert_email
  tags        = local.tags
}
# @section services.sns.enabled end

# @section services.sqs.enabled begin
module "sqs" {
  source = "./modules/sqs"

  name_prefix                = local.name_prefix
  queue_name                 = var.sqs_queue_name
  fifo                       = var.sqs_fifo
  visibility_timeout_seconds = var.sqs_visibility_timeout_seconds
  message_retention_seconds  = var.sqs_message_retention_seconds
  max_receive_count          = var.sqs_max_receive_count
  tags                       = local.tags
}
# @section services.sqs.enabled end

# @section services.lambda.enabled begin
module "lambda" {
  source = "./modules/lambda"

  name_prefix        = local.name_prefix
  runtime            = var.lambda_runtime
  architecture       = var.lambda_architecture
  memory_size        = var.lambda_memory_size
  timeout            = var.lambda_timeout
  log_retention_days = var.lambda_log_retention_days
  tracing_mode       = var.lambda_tracing_mode
  tags               = local.tags
}
# @section services.lambda.enabled end

# @section services.cloudfront.enabled begin
module "cloudfront" {
  source = "./modules/cloudfront"

  providers = {
    aws           = aws
    aws.us_east_1 = aws.us_east_1
  }

  name_prefix         = local.name_prefix
  price_class         = var.cloudfront_price_class
  default_root_object = var.cloudfront_default_root_object
  web_acl_arn         = local.cloudfront_web_acl_arn
  custom_domain       = local.dns_zone_enabled
  domain              = var.domain
  subdomain           = var.cloudfront_subdomain
  zone_id             = local.dns_zone_id
  tags                = local.tags
}
# @section services.cloudfront.enabled end

# @section services.ecr.enabled begin
module "ecr" {
  source = "./modules/ecr"

  name_prefix          = local.name_prefix
  repository_names     = var.ecr_repository_names
  image_tag_mutability = var.ecr_image_tag_mutability
  scan_on_push         = var.ecr_scan_on_push
  keep_last_images     = var.ecr_keep_last_images
  tags                 = local.tags
}
# @section services.ecr.enabled end

# @section services.route53.enabled begin
module "route53" {
  source = "./modules/route53"

  # Query logs are delivered to CloudWatch Logs in us-east-1, and DNSSEC keys live there.
  providers = {
    aws           = aws
    aws.us_east_1 = aws.us_east_1
  }

  name_prefix          = local.name_prefix
  domain               = var.domain
  wildcard_certificate = var.route53_wildcard_certificate
  force_destroy        = var.route53_force_destroy
  query_logging        = var.route53_query_logging
  dnssec               = var.route53_dnssec
  tags                 = local.tags
}
# @section services.route53.enabled end

# @section services.waf.enabled begin
module "waf" {
  source = "./modules/waf"

  # CLOUDFRONT-scope web ACLs live in us-east-1.
  providers = {
    aws = aws.us_east_1
  }

  name_prefix        = local.name_prefix
  rate_limit         = var.waf_rate_limit
  managed_rules_mode = var.waf_managed_rules_mode
  tags               = local.tags
}
# @section services.waf.enabled end
