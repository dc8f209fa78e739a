variable "name_prefix" {
  description = "Prefix of every resource name (global prefix and environment name)."
  type        = string
}

variable "tags" {
  description = "Tags added to every resource."
  type        = map(string)
  default     = {}
}

variable "price_class" {
  description = "Edge locations served: PriceClass_100, PriceClass_200 or PriceClass_All."
  type        = string
}

variable "default_root_object" {
  description = "Object returned for the root URL."
  type        = string
}

variable "web_acl_arn" {
  description = "WAF web ACL (CLOUDFRONT scope) attached to the distribution; null attaches none."
  type        = string
  default     = null
}

variable "custom_domain" {
  description = "Serve the distribution on <subdomain>.<domain> with its own certificate and alias records (needs zone_id)."
  type        = bool
  default     = false
}

variable "domain" {
  description = "DNS domain of the environment."
  type        = string
  default     = ""
}

variable "subdomain" {
  description = "Label of the distribution's host name under the domain."
  type        = string
}

variable "zone_id" {
  description = "Route53 hosted zone of the domain."
  type        = string
  default     = null
}
