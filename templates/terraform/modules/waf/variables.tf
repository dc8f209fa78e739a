variable "name_prefix" {
  description = "Prefix of every resource name (global prefix and environment name)."
  type        = string
}

variable "tags" {
  description = "Tags added to every resource."
  type        = map(string)
  default     = {}
}

variable "rate_limit" {
  description = "Requests per client IP in any five-minute window before the IP is blocked."
  type        = number
}

variable "managed_rules_mode" {
  description = "block enforces the AWS managed rule groups; count only records their matches."
  type        = string

  validation {
    condition     = contains(["block", "count"], var.managed_rules_mode)
    error_message = "managed_rules_mode must be block or count."
  }
}

variable "log_retention_days" {
  description = "Retention of the WAF log group, in days."
  type        = number
  default     = 365
}
