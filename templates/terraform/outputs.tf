# Outputs of each service, gated like the module they read from.

output "name_prefix" {
  description = "Prefix of every resource name."
  value       = local.name_prefix
}

output "region" {
  description = "AWS region of the environment (aws eks update-kubeconfig --region ...)."
  value       = var.region
}

output "domain" {
  description = "DNS domain of the environment (empty: none)."
  value       = var.domain
}

# @section services.vpc.enabled begin
output "vpc_id" {
  description = "ID of the VPC."
  value       = module.vpc.vpc_id
}

output "private_subnet_ids" {
  description = "Private subnets of the VPC."
  value       = module.vpc.private_subnet_ids
}

output "public_subnet_ids" {
  description = "Public subnets of the VPC."
  value       = module.vpc.public_subnet_ids
}
# @section services.vpc.enabled end

# @section services.eks.enabled begin
output "eks_cluster_name" {
  description = "Name of the EKS cluster (aws eks update-kubeconfig --name ...)."
  value       = module.eks.cluster_name
}

output "eks_cluster_endpoint" {
  description = "Kubernetes API endpoint."
  value       = module.eks.cluster_endpoint
}

output "eks_oidc_provider_arn" {
  description = "IAM OIDC provider of the cluster, for IRSA roles."
  value       = module.eks.oidc_provider_arn
}
# @section services.eks.enabled end

# @section services.rds.enabled begin
output "rds_endpoint" {
  description = "PostgreSQL endpoint (host:port)."
  value       = module.rds.endpoint
}

output "rds_master_user_secret_arn" {
  description = "Secrets Manager secret with the master password."
  value       = module.rds.master_user_secret_arn
}
# @section services.rds.enabled end

# @section services.aurora.enabled begin
output "aurora_endpoint" {
  description = "Aurora writer endpoint."
  value       = module.aurora.endpoint
}

output "aurora_reader_endpoint" {
  description = "Aurora reader endpoint."
  value       = module.aurora.reader_endpoint
}
# @section services.aurora.enabled end

# @section services.elasticache.enabled begin
output "elasticache_primary_endpoint" {
  description = "Valkey primary endpoint (TLS)."
  value       = module.elasticache.primary_endpoint_address
}

output "elasticache_auth_token_secret_arn" {
  description = "Secrets Manager secret with the Valkey AUTH token (clients need it and TLS)."
  value       = module.elasticache.auth_token_secret_arn
}
# @section services.elasticache.enabled end

# @section services.msk.enabled begin
output "msk_bootstrap_brokers" {
  description = "Kafka bootstrap brokers (TLS, IAM authentication)."
  value       = module.msk.bootstrap_brokers_sasl_iam
}
# @section services.msk.enabled end

# @section services.opensearch.enabled begin
output "opensearch_endpoint" {
  description = "OpenSearch HTTPS endpoint inside the VPC."
  value       = module.opensearch.endpoint
}
# @section services.opensearch.enabled end

# @section services.s3.enabled begin
output "s3_bucket_name" {
  description = "Name of the data bucket."
  value       = module.s3.bucket_name
}
# @section services.s3.enabled end

# @section services.sns.enabled begin
output "sns_topic_arn" {
  description = "ARN of the topic."
  value       = module.sns.topic_arn
}
# @section services.sns.enabled end

# @section services.sqs.enabled begin
output "sqs_queue_url" {
  description = "URL of the queue."
  value       = module.sqs.queue_url
}
# @section services.sqs.enabled end

# @section services.lambda.enabled begin
output "lambda_function_name" {
  description = "Name of the function."
  value       = module.lambda.function_name
}
# @section services.lambda.enabled end

# @section services.cloudfront.enabled begin
output "cloudfront_url" {
  description = "Public URL of the distribution."
  value       = module.cloudfront.url
}

output "cloudfront_distribution_id" {
  description = "Distribution ID, for cache invalidations."
  value       = module.cloudfront.distribution_id
}
# @section services.cloudfront.enabled end

# @section services.ecr.enabled begin
output "ecr_repository_urls" {
  description = "Repository URLs by name."
  value       = module.ecr.repository_urls
}
# @section services.ecr.enabled end

# @section services.route53.enabled begin
output "route53_name_servers" {
  description = "Name servers to delegate the domain to."
  value       = module.route53.name_servers
}

output "route53_certificate_arn" {
  description = "Wildcard certificate for ingress load balancers."
  value       = module.route53.certificate_arn
}

output "route53_dnssec_ds_record" {
  description = "DS record to add at the registrar when DNSSEC signing is on (null otherwise)."
  value       = module.route53.dnssec_ds_record
}
# @section services.route53.enabled end

# @section services.waf.enabled begin
output "waf_web_acl_arn" {
  description = "Web ACL protecting CloudFront."
  value       = module.waf.web_acl_arn
}
# @section services.waf.enabled end
