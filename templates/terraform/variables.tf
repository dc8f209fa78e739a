# Root variables. Their defaults equal the working defaults in terraform.tfvars. A service's
# variables are gated like its module and its tfvars block: a disabled service leaves no
# declaration that nothing reads (tflint's terraform_unused_declarations stays quiet).

variable "name" {
  description = "Name of the environment; part of every resource name."
  type        = string
  default     = "demo"
}

variable "global_prefix" {
  description = "Prefix of every resource name, before the environment name."
  type        = string
  default     = "ies"
}

variable "region" {
  description = "Region the stack is deployed to."
  type        = string
  default     = "eu-west-1"
}

variable "domain" {
  description = "DNS domain for the delivery, dashboard and metrics tools; empty creates no host-based ingress and no DNS records."
  type        = string
  default     = ""
}

# @section services.vpc.enabled begin
variable "vpc_cidr" {
  description = "VPC: IPv4 range of the VPC; subnets are carved from it as /20 blocks."
  type        = string
  default     = "10.0.0.0/16"
}

variable "vpc_az_count" {
  description = "VPC: Number of availability zones the subnets span."
  type        = number
  default     = 3
}

variable "vpc_single_nat_gateway" {
  description = "VPC: One shared NAT gateway (cheaper) instead of one per zone (highly available)."
  type        = bool
  default     = true
}

variable "vpc_enable_flow_logs" {
  description = "VPC: Record all VPC traffic to CloudWatch Logs."
  type        = bool
  default     = true
}

variable "vpc_flow_log_retention_days" {
  description = "VPC: Days flow logs are kept (KMS-encrypted); a year or more is what audits expect."
  type        = number
  default     = 365
}

# @section services.vpc.enabled end

# @section services.eks.enabled begin
variable "eks_kubernetes_version" {
  description = "EKS: Minor version of the control plane and nodes; versions past AWS standard support (14 months) cost about six times more per cluster hour."
  type        = string
  default     = "1.35"
}

variable "eks_node_instance_type" {
  description = "EKS: EC2 instance type of the managed node group."
  type        = string
  default     = "m6i.large"
}

variable "eks_node_capacity_type" {
  description = "EKS: On-demand or spot instances."
  type        = string
  default     = "ON_DEMAND"
}

variable "eks_node_min_size" {
  description = "EKS: Lower bound of the node group."
  type        = number
  default     = 2
}

variable "eks_node_max_size" {
  description = "EKS: Upper bound of the node group."
  type        = number
  default     = 5
}

variable "eks_node_desired_size" {
  description = "EKS: Nodes at creation; the autoscaler owns the count afterwards."
  type        = number
  default     = 2
}

variable "eks_node_disk_size" {
  description = "EKS: Encrypted gp3 root volume of each node."
  type        = number
  default     = 50
}

variable "eks_endpoint_public_access" {
  description = "EKS: Also expose the Kubernetes API on a public endpoint, reachable only from the CIDR blocks below; the private endpoint is always on."
  type        = bool
  default     = false
}

variable "eks_public_access_cidrs" {
  description = "EKS: Comma-separated IPv4 CIDR blocks allowed to reach the public API endpoint; required when the public endpoint is on, 0.0.0.0/0 is refused."
  type        = string
  default     = ""
}

# @section services.eks.enabled end

# @section services.rds.enabled begin
variable "rds_engine_version" {
  description = "RDS PostgreSQL: Major version; RDS picks its current minor version and applies later minors in the maintenance window."
  type        = string
  default     = "17"
}

variable "rds_instance_class" {
  description = "RDS PostgreSQL: Compute and memory of the instance."
  type        = string
  default     = "db.t4g.medium"
}

variable "rds_allocated_storage" {
  description = "RDS PostgreSQL: Initial gp3 storage."
  type        = number
  default     = 20
}

variable "rds_max_allocated_storage" {
  description = "RDS PostgreSQL: Storage grows automatically up to this size."
  type        = number
  default     = 100
}

variable "rds_multi_az" {
  description = "RDS PostgreSQL: Keep a synchronous standby in another availability zone."
  type        = bool
  default     = false
}

variable "rds_backup_retention_days" {
  description = "RDS PostgreSQL: Point-in-time recovery window."
  type        = number
  default     = 7
}

variable "rds_deletion_protection" {
  description = "RDS PostgreSQL: Refuse to delete the instance until this is turned off."
  type        = bool
  default     = true
}

# @section services.rds.enabled end

# @section services.aurora.enabled begin
variable "aurora_engine_version" {
  description = "Aurora PostgreSQL: Aurora PostgreSQL major version; Aurora picks its current minor version and applies later minors in the maintenance window."
  type        = string
  default     = "17"
}

variable "aurora_instance_count" {
  description = "Aurora PostgreSQL: One writer plus readers."
  type        = number
  default     = 2
}

variable "aurora_min_capacity" {
  description = "Aurora PostgreSQL: Smallest Serverless v2 capacity per instance."
  type        = number
  default     = 0.5
}

variable "aurora_max_capacity" {
  description = "Aurora PostgreSQL: Largest Serverless v2 capacity per instance."
  type        = number
  default     = 4
}

variable "aurora_backup_retention_days" {
  description = "Aurora PostgreSQL: Point-in-time recovery window."
  type        = number
  default     = 7
}

variable "aurora_deletion_protection" {
  description = "Aurora PostgreSQL: Refuse to delete the cluster until this is turned off."
  type        = bool
  default     = true
}

# @section services.aurora.enabled end

# @section services.elasticache.enabled begin
variable "elasticache_engine_version" {
  description = "ElastiCache (Valkey): Engine version."
  type        = string
  default     = "8.0"
}

variable "elasticache_node_type" {
  description = "ElastiCache (Valkey): Cache node size."
  type        = string
  default     = "cache.t4g.small"
}

variable "elasticache_num_cache_clusters" {
  description = "ElastiCache (Valkey): Primary plus replicas; two or more enables automatic failover."
  type        = number
  default     = 2
}

variable "elasticache_snapshot_retention_days" {
  description = "ElastiCache (Valkey): Days automatic snapshots are kept; 0 turns them off."
  type        = number
  default     = 5
}

# @section services.elasticache.enabled end

# @section services.msk.enabled begin
variable "msk_kafka_version" {
  description = "MSK (Kafka): Apache Kafka version; the .x versions take MSK's patch releases automatically."
  type        = string
  default     = "3.9.x"
}

variable "msk_broker_instance_type" {
  description = "MSK (Kafka): Size of each broker."
  type        = string
  default     = "kafka.m7g.large"
}

variable "msk_brokers_per_az" {
  description = "MSK (Kafka): Brokers in each availability zone."
  type        = number
  default     = 1
}

variable "msk_ebs_volume_size" {
  description = "MSK (Kafka): EBS volume of each broker."
  type        = number
  default     = 100
}

# @section services.msk.enabled end

# @section services.opensearch.enabled begin
variable "opensearch_engine_version" {
  description = "OpenSearch: OpenSearch version."
  type        = string
  default     = "OpenSearch_2.17"
}

variable "opensearch_instance_type" {
  description = "OpenSearch: Data node size."
  type        = string
  default     = "r6g.large.search"
}

variable "opensearch_instance_count" {
  description = "OpenSearch: Two or more spreads the nodes over two availability zones."
  type        = number
  default     = 2
}

variable "opensearch_ebs_volume_size" {
  description = "OpenSearch: gp3 volume of each data node."
  type        = number
  default     = 20
}

# @section services.opensearch.enabled end

# @section services.s3.enabled begin
variable "s3_bucket_suffix" {
  description = "S3: Bucket name is <prefix>-<name>-<suffix>-<account id>."
  type        = string
  default     = "data"
}

variable "s3_versioning" {
  description = "S3: Keep every version of every object."
  type        = bool
  default     = true
}

variable "s3_encryption" {
  description = "S3: Server-side encryption of objects."
  type        = string
  default     = "aws:kms"
}

variable "s3_noncurrent_version_expiration_days" {
  description = "S3: Days before noncurrent object versions are deleted."
  type        = number
  default     = 90
}

variable "s3_force_destroy" {
  description = "S3: Let Terraform delete the bucket together with its objects."
  type        = bool
  default     = false
}

# @section services.s3.enabled end

# @section services.sns.enabled begin
variable "sns_topic_name" {
  description = "SNS: Last part of the topic name."
  type        = string
  default     = "events"
}

variable "sns_fifo" {
  description = "SNS: Ordered, deduplicated delivery."
  type        = bool
  default     = false
}

variable "sns_alert_email" {
  description = "SNS: Address subscribed to the topic; empty subscribes nobody."
  type        = string
  default     = ""
}

# @section services.sns.enabled end

# @section services.sqs.enabled begin
variable "sqs_queue_name" {
  description = "SQS: Last part of the queue name."
  type        = string
  default     = "jobs"
}

variable "sqs_fifo" {
  description = "SQS: Exactly-once, ordered processing."
  type        = bool
  default     = false
}

variable "sqs_visibility_timeout_seconds" {
  description = "SQS: Time a received message stays hidden from other consumers."
  type        = number
  default     = 30
}

variable "sqs_message_retention_seconds" {
  description = "SQS: Time an unprocessed message is kept (60 to 1209600)."
  type        = number
  default     = 345600
}

variable "sqs_max_receive_count" {
  description = "SQS: Failed receives before a message moves to the dead-letter queue."
  type        = number
  default     = 5
}

# @section services.sqs.enabled end

# @section services.lambda.enabled begin
variable "lambda_runtime" {
  description = "Lambda: Node.js runtime."
  type        = string
  default     = "nodejs22.x"
}

variable "lambda_architecture" {
  description = "Lambda: arm64 (Graviton, cheaper) or x86_64."
  type        = string
  default     = "arm64"
}

variable "lambda_memory_size" {
  description = "Lambda: Memory, and proportional CPU, of the function."
  type        = number
  default     = 256
}

variable "lambda_timeout" {
  description = "Lambda: Maximum run time of one invocation (up to 900)."
  type        = number
  default     = 30
}

variable "lambda_log_retention_days" {
  description = "Lambda: Days the function logs are kept (KMS-encrypted); a year or more is what audits expect."
  type        = number
  default     = 365
}

variable "lambda_tracing_mode" {
  description = "Lambda: Active samples and traces requests; PassThrough only follows upstream decisions."
  type        = string
  default     = "Active"
}

# @section services.lambda.enabled end

# @section services.cloudfront.enabled begin
variable "cloudfront_price_class" {
  description = "CloudFront: Which edge locations serve the content."
  type        = string
  default     = "PriceClass_100"
}

variable "cloudfront_subdomain" {
  description = "CloudFront: Distribution host is <label>.<domain> when a domain and Route53 are set."
  type        = string
  default     = "cdn"
}

variable "cloudfront_default_root_object" {
  description = "CloudFront: Object returned for the root URL."
  type        = string
  default     = "index.html"
}

# @section services.cloudfront.enabled end

# @section services.ecr.enabled begin
variable "ecr_repository_names" {
  description = "ECR: Comma-separated repository names."
  type        = string
  default     = "app"
}

variable "ecr_image_tag_mutability" {
  description = "ECR: Immutable tags cannot be overwritten."
  type        = string
  default     = "IMMUTABLE"
}

variable "ecr_scan_on_push" {
  description = "ECR: Scan every pushed image for vulnerabilities."
  type        = bool
  default     = true
}

variable "ecr_keep_last_images" {
  description = "ECR: Images kept per repository; older ones expire."
  type        = number
  default     = 30
}

# @section services.ecr.enabled end

# @section services.route53.enabled begin
variable "route53_wildcard_certificate" {
  description = "Route53: Issue a DNS-validated certificate for the domain and *.domain."
  type        = bool
  default     = true
}

variable "route53_query_logging" {
  description = "Route53: Log the queries resolvers send to the zone (CloudWatch Logs in us-east-1, KMS-encrypted, kept a year)."
  type        = bool
  default     = true
}

variable "route53_dnssec" {
  description = "Route53: Sign the zone; then add the DS record (output route53_dnssec_ds_record) at the registrar. Remove it there before turning signing off."
  type        = bool
  default     = false
}

variable "route53_force_destroy" {
  description = "Route53: Let Terraform delete the zone with records it does not manage."
  type        = bool
  default     = false
}

# @section services.route53.enabled end

# @section services.waf.enabled begin
variable "waf_rate_limit" {
  description = "WAF: Requests per client IP in five minutes before it is blocked."
  type        = number
  default     = 2000
}

variable "waf_managed_rules_mode" {
  description = "WAF: Enforce the AWS managed rule groups or only count their matches."
  type        = string
  default     = "block"
}

# @section services.waf.enabled end
