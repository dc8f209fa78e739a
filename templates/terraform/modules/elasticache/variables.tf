variable "name_prefix" {
  description = "Prefix of every resource name (global prefix and environment name)."
  type        = string
}

variable "vpc_id" {
  description = "VPC the service is placed in."
  type        = string
}

variable "subnet_ids" {
  description = "Private subnets the service is placed in."
  type        = list(string)
}

variable "allowed_cidr_blocks" {
  description = "CIDR blocks allowed to connect (the VPC by default)."
  type        = list(string)
}

variable "tags" {
  description = "Tags added to every resource."
  type        = map(string)
  default     = {}
}

variable "engine_version" {
  description = "Valkey engine version."
  type        = string
}

variable "node_type" {
  description = "Cache node type."
  type        = string
}

variable "num_cache_clusters" {
  description = "Number of nodes (one primary, the rest replicas); two or more enables automatic failover."
  type        = number
  default     = 2
}

variable "snapshot_retention_days" {
  description = "Days of automatic snapshots (0 turns them off)."
  type        = number
}

variable "log_retention_days" {
  description = "Retention of the log groups, in days (a year by default)."
  type        = number
  default     = 365
}
