variable "name" {
  description = "Name of the log bucket (globally unique, at most 63 characters)."
  type        = string
}

variable "cloudfront_logs" {
  description = "Also receive CloudFront standard logs (keeps ACLs enabled, owner preferred)."
  type        = bool
  default     = false
}

variable "log_retention_days" {
  description = "Days access logs are kept (a year by default)."
  type        = number
  default     = 365
}

variable "force_destroy" {
  description = "Let Terraform delete the bucket together with its logs."
  type        = bool
  default     = false
}

variable "tags" {
  description = "Tags added to every resource."
  type        = map(string)
  default     = {}
}
