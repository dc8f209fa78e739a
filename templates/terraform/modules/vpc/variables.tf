variable "name_prefix" {
  description = "Prefix of every resource name (global prefix and environment name)."
  type        = string
}

variable "cidr_block" {
  description = "IPv4 CIDR block of the VPC."
  type        = string

  validation {
    condition     = can(cidrnetmask(var.cidr_block))
    error_message = "cidr_block must be a valid IPv4 CIDR block."
  }
}

variable "az_count" {
  description = "Number of availability zones to spread the subnets over."
  type        = number

  validation {
    condition     = var.az_count >= 2 && var.az_count <= 4
    error_message = "az_count must be between 2 and 4."
  }
}

variable "single_nat_gateway" {
  description = "One shared NAT gateway (cheaper) instead of one per availability zone (highly available)."
  type        = bool
}

variable "enable_flow_logs" {
  description = "Send VPC flow logs to CloudWatch Logs."
  type        = bool
}

variable "flow_log_retention_days" {
  description = "Retention of the flow log group, in days."
  type        = number
}

variable "cluster_name" {
  description = "EKS cluster name used for the subnet discovery tags of the AWS Load Balancer Controller."
  type        = string
  default     = ""
}

variable "tags" {
  description = "Tags added to every resource."
  type        = map(string)
  default     = {}
}
