variable "name_prefix" {
  description = "Prefix of every resource name (global prefix and environment name)."
  type        = string
}

variable "vpc_id" {
  description = "VPC of the cluster."
  type        = string
}

variable "subnet_ids" {
  description = "Private subnets for the control plane network interfaces and the nodes."
  type        = list(string)
}

variable "kubernetes_version" {
  description = "Kubernetes minor version of the control plane and the nodes."
  type        = string
}

variable "endpoint_public_access" {
  description = "Also expose the Kubernetes API on a public endpoint, limited to public_access_cidrs (the private endpoint is always on)."
  type        = bool
  default     = false
}

variable "public_access_cidrs" {
  description = "CIDR blocks allowed to reach the public API endpoint: required when it is on; an open range (/0) is refused."
  type        = list(string)
  default     = []

  validation {
    condition     = alltrue([for cidr in var.public_access_cidrs : can(cidrhost(cidr, 0)) && !endswith(cidr, "/0")])
    error_message = "public_access_cidrs must be IPv4 CIDR blocks, none of them open to the whole internet (/0)."
  }

  validation {
    condition     = !var.endpoint_public_access || length(var.public_access_cidrs) > 0
    error_message = "The public API endpoint needs at least one CIDR block in public_access_cidrs."
  }
}

variable "node_instance_type" {
  description = "EC2 instance type of the managed node group."
  type        = string
}

variable "node_capacity_type" {
  description = "ON_DEMAND or SPOT."
  type        = string

  validation {
    condition     = contains(["ON_DEMAND", "SPOT"], var.node_capacity_type)
    error_message = "node_capacity_type must be ON_DEMAND or SPOT."
  }
}

variable "node_min_size" {
  description = "Minimum number of nodes."
  type        = number
}

variable "node_max_size" {
  description = "Maximum number of nodes."
  type        = number
}

variable "node_desired_size" {
  description = "Number of nodes at creation (the autoscaler owns it afterwards)."
  type        = number
}

variable "node_disk_size" {
  description = "Root volume size of each node, in GiB."
  type        = number
}

variable "log_retention_days" {
  description = "Retention of the control plane log group, in days (a year by default)."
  type        = number
  default     = 365
}

variable "tags" {
  description = "Tags added to every resource."
  type        = map(string)
  default     = {}
}
