variable "name_prefix" {
  description = "Prefix of every resource name (global prefix and environment name)."
  type        = string
}

variable "tags" {
  description = "Tags added to every resource."
  type        = map(string)
  default     = {}
}

variable "topic_name" {
  description = "Last part of the topic name."
  type        = string
}

variable "fifo" {
  description = "FIFO topic (ordered, deduplicated delivery)."
  type        = bool
}

variable "alert_email" {
  description = "E-mail address subscribed to the topic; empty subscribes nobody."
  type        = string
}
