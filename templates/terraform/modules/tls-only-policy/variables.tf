variable "actions" {
  description = "Actions refused without TLS (the service's actions, for example [\"sqs:*\"])."
  type        = list(string)
}

variable "resources" {
  description = "Resources the statement covers (for a bucket: the bucket and its objects)."
  type        = list(string)
}
