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
  description = "OpenSearch engine version, for example OpenSearch_2.17."
  type        = string
}

variable "instance_type" {
  description = "Data node instance type."
  type        = string
}

variable "instance_count" {
  description = "Number of data nodes; two or more spreads them over two availability zones."
  type        = number
}

variable "ebs_volume_size" {
  description = "Storage per data node, in GiB."
  type        = number
}

variable "log_retention_days" {
  description = "Retention of the log groups, in days (a year by default)."
  type        = number
  default     = 365
}
