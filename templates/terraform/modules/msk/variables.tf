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

variable "kafka_version" {
  description = "Apache Kafka version of the cluster."
  type        = string
}

variable "broker_instance_type" {
  description = "Broker instance type."
  type        = string
}

variable "brokers_per_az" {
  description = "Brokers in each availability zone (the cluster spans every given subnet, up to three)."
  type        = number
}

variable "ebs_volume_size" {
  description = "Storage per broker, in GiB."
  type        = number
}

variable "log_retention_days" {
  description = "Retention of the broker log group, in days."
  type        = number
  default     = 365
}
