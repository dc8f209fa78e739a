locals {
  suffix     = var.fifo ? ".fifo" : ""
  queue_name = "${var.name_prefix}-${var.queue_name}"
}

resource "aws_sqs_queue" "dead_letter" {
  name                      = "${local.queue_name}-dlq${local.suffix}"
  fifo_queue                = var.fifo
  message_retention_seconds = 1209600
  sqs_managed_sse_enabled   = true

  tags = var.tags
}

resource "aws_sqs_queue" "this" {
  name                        = "${local.queue_name}${local.suffix}"
  fifo_queue                  = var.fifo
  content_based_deduplication = var.fifo
  visibility_timeout_seconds  = var.visibility_timeout_seconds
  message_retention_seconds   = var.message_retention_seconds
  receive_wait_time_seconds   = 20
  sqs_managed_sse_enabled     = true

  redrive_policy = jsonencode({
    deadLetterTargetArn = aws_sqs_queue.dead_letter.arn
    maxReceiveCount     = var.max_receive_count
  })

  tags = var.tags
}

resource "aws_sqs_queue_redrive_allow_policy" "dead_letter" {
  queue_url = aws_sqs_queue.dead_letter.id

  redrive_allow_policy = jsonencode({
    redrivePermission = "byQueue"
    sourceQueueArns   = [aws_sqs_queue.this.arn]
  })
}

module "tls_only" {
  source = "../tls-only-policy"

  actions   = ["sqs:*"]
  resources = [aws_sqs_queue.this.arn]
}

resource "aws_sqs_queue_policy" "this" {
  queue_url = aws_sqs_queue.this.id
  policy    = module.tls_only.json
}
