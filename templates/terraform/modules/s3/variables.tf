variable "name_prefix" {
  description = "Prefix of every resource name (global prefix and environment name)."
  type        = string
}

variable "tags" {
  description = "Tags added to every resource."
  type        = map(string)
  default     = {}
}

variable "bucket_suffix" {
  description = "Last part of the bucket name; the account ID is appended to keep it globally unique."
  type        = string
}

variable "versioning" {
  description = "Keep every version of every object."
  type        = bool
}

variable "encryption" {
  description = "Server-side encryption: aws:kms (a customer managed key) or AES256 (S3 managed keys)."
  type        = string

  validation {
    condition     = contains(["aws:kms", "AES256"], var.encryption)
    error_message = "encryption must be aws:kms or AES256."
  }
}

variable "noncurrent_version_expiration_days" {
  description = "Days after which old object versions are deleted."
  type        = number
}

variable "force_destroy" {
  description = "Allow Terraform to delete the bucket with its objects."
  type        = bool
}
