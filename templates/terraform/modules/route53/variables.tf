variable "name_prefix" {
  description = "Prefix of every resource name (global prefix and environment name)."
  type        = string
}

variable "tags" {
  description = "Tags added to every resource."
  type        = map(string)
  default     = {}
}

variable "domain" {
  description = "DNS domain of the environment; empty creates nothing."
  type        = string
}

variable "wildcard_certificate" {
  description = "Issue a DNS-validated ACM certificate for the domain and *.domain (ingress load balancers)."
  type        = bool
}

variable "force_destroy" {
  description = "Allow Terraform to delete the zone with records it does not manage."
  type        = bool
}

variable "query_logging" {
  description = "Log DNS queries to the zone (CloudWatch Logs in us-east-1, KMS-encrypted)."
  type        = bool
  default     = true
}

variable "dnssec" {
  description = "Sign the zone with DNSSEC (add the DS record output at the registrar afterwards)."
  type        = bool
  default     = false
}

variable "log_retention_days" {
  description = "Days DNS query logs are kept (a year by default)."
  type        = number
  default     = 365
}
