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
