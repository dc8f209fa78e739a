variable "name" {
  description = "Name of the role."
  type        = string
}

variable "tags" {
  description = "Tags added to the role."
  type        = map(string)
  default     = {}
}
