variable "name_prefix" {
  description = "Prefix of every resource name (global prefix and environment name)."
  type        = string
}

variable "tags" {
  description = "Tags added to every resource."
  type        = map(string)
  default     = {}
}

variable "repository_names" {
  description = "Comma-separated repository names, created under <name_prefix>/."
  type        = string
}

variable "image_tag_mutability" {
  description = "MUTABLE or IMMUTABLE tags."
  type        = string
}

variable "scan_on_push" {
  description = "Scan every pushed image for vulnerabilities."
  type        = bool
}

variable "keep_last_images" {
  description = "Tagged images kept per repository; older ones expire."
  type        = number
}
