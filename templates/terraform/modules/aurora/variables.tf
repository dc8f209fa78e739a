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
  description = "Aurora PostgreSQL engine version."
  type        = string
}

variable "instance_count" {
  description = "Number of Serverless v2 instances (one writer, the rest readers)."
  type        = number
}

variable "min_capacity" {
  description = "Minimum Aurora capacity units per instance."
  type        = number
}

variable "max_capacity" {
  description = "Maximum Aurora capacity units per instance."
  type        = number
}

variable "backup_retention_days" {
  description = "Days of automated backups."
  type        = number
}

variable "deletion_protection" {
  description = "Refuse deletion of the cluster until this is turned off."
  type        = bool
}

variable "database_name" {
  description = "Name of the database created at launch."
  type        = string
  default     = "app"
}

variable "master_username" {
  description = "Master user name; its password is generated and kept in Secrets Manager."
  type        = string
  default     = "dbadmin"
}
