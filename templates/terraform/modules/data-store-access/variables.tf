variable "name" {
  description = "Name of the data store: the security group's name prefix and Name tag."
  type        = string
}

variable "description" {
  description = "Description of the security group (changing it replaces the group)."
  type        = string
}

variable "vpc_id" {
  description = "VPC of the security group."
  type        = string
}

variable "allowed_cidr_blocks" {
  description = "CIDR blocks allowed to connect, one ingress rule each."
  type        = list(string)
}

variable "port" {
  description = "TCP port clients connect to."
  type        = number
}

variable "protocol" {
  description = "What clients speak on the port, for the rule descriptions (\"<protocol> from <cidr>\")."
  type        = string
}

variable "kms_key_description" {
  description = "Description of the customer managed key that encrypts the store at rest."
  type        = string
}

variable "tags" {
  description = "Tags added to every resource."
  type        = map(string)
  default     = {}
}
