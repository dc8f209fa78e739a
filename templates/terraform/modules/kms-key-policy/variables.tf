variable "allow_cloudwatch_logs" {
  description = "Let CloudWatch Logs use the key for the log groups of this account and region."
  type        = bool
  default     = false
}

variable "allow_route53_dnssec" {
  description = "Let Route53 sign the hosted zones of this account with the key (DNSSEC key signing key)."
  type        = bool
  default     = false
}
