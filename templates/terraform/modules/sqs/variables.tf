variable "name_prefix" {
  description = "Prefix of every resource name (global prefix and environment name)."
  type        = string
}

variable "tags" {
  description = "Tags added to every resource."
  type        = map(string)
  default     = {}
}

variable "queue_name" {
  description = "Last part of the queue name."
  type        = string
}

variable "fifo" {
  description = "FIFO queue (exactly-once, ordered processing)."
  type        = bool
}

variable "visibility_timeout_seconds" {
  description = "Time a received message stays hidden from other consumers."
  type        = number
}

variable "message_retention_seconds" {
  description = "Time a message is kept when nobody deletes it."
  type        = number
}

variable "max_receive_count" {
  description = "Receives before a message moves to the dead-letter queue."
  type        = number
}
