variable "name_prefix" {
  description = "Prefix of every resource name (global prefix and environment name)."
  type        = string
}

variable "tags" {
  description = "Tags added to every resource."
  type        = map(string)
  default     = {}
}

variable "runtime" {
  description = "Node.js runtime of the function."
  type        = string
}

variable "architecture" {
  description = "Instruction set: arm64 (Graviton) or x86_64."
  type        = string

  validation {
    condition     = contains(["arm64", "x86_64"], var.architecture)
    error_message = "architecture must be arm64 or x86_64."
  }
}

variable "memory_size" {
  description = "Memory of the function, in MB."
  type        = number
}

variable "timeout" {
  description = "Maximum run time of one invocation, in seconds."
  type        = number
}

variable "log_retention_days" {
  description = "Retention of the function's log group, in days."
  type        = number
}

variable "tracing_mode" {
  description = "X-Ray tracing: Active or PassThrough."
  type        = string
}
