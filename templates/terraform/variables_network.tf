# Network used when the vpc service is disabled (see wiring.tf). Empty values select the
# account's default VPC and its default subnets.

variable "existing_vpc_id" {
  description = "Existing VPC for the services that need a network when the vpc service is disabled; empty uses the default VPC."
  type        = string
  default     = ""
}

variable "existing_private_subnet_ids" {
  description = "Subnets of existing_vpc_id, in at least two availability zones."
  type        = list(string)
  default     = []
}

variable "existing_allowed_cidr_blocks" {
  description = "CIDR blocks allowed to reach the data services in existing_vpc_id."
  type        = list(string)
  default     = []
}
