locals {
  function_name = "${var.name_prefix}-function"
}

data "archive_file" "placeholder" {
  type        = "zip"
  source_dir  = "${path.module}/src"
  output_path = "${path.root}/.terraform/lambda-${local.function_name}.zip"
}

data "aws_iam_policy_document" "assume" {
  statement {
    actions = ["sts:AssumeRole"]

    principals {
      type        = "Service"
      identifiers = ["lambda.amazonaws.com"]
    }
  }
}

resource "aws_iam_role" "this" {
  name               = "${local.function_name}-exec"
  assume_role_policy = data.aws_iam_policy_document.assume.json

  tags = var.tags
}

resource "aws_iam_role_policy_attachment" "basic" {
  role       = aws_iam_role.this.name
  policy_arn = "arn:aws:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole"
}

resource "aws_iam_role_policy_attachment" "xray" {
  role       = aws_iam_role.this.name
  policy_arn = "arn:aws:iam::aws:policy/AWSXRayDaemonWriteAccess"
}

module "key_policy" {
  source = "../kms-key-policy"

  allow_cloudwatch_logs = true
}

resource "aws_kms_key" "logs" {
  description             = "Encryption of the ${local.function_name} log group"
  deletion_window_in_days = 30
  enable_key_rotation     = true
  policy                  = module.key_policy.json

  tags = var.tags
}

resource "aws_cloudwatch_log_group" "this" {
  name              = "/aws/lambda/${local.function_name}"
  retention_in_days = var.log_retention_days
  kms_key_id        = aws_kms_key.logs.arn

  tags = var.tags
}

resource "aws_lambda_function" "this" {
  #checkov:skip=CKV_AWS_115:Reserved concurrency takes capacity from the account's shared pool; size it with the application, not in the placeholder.
  #checkov:skip=CKV_AWS_116:The event source is not known yet (no asynchronous invoker); add an on-failure destination with the application.
  #checkov:skip=CKV_AWS_117:The function reaches no private resource by default; attach it to the VPC when it needs one.
  #checkov:skip=CKV_AWS_272:The code is a placeholder replaced by the application's pipeline (ignore_changes), which is where code signing belongs.
  function_name = local.function_name
  role          = aws_iam_role.this.arn
  runtime       = var.runtime
  architectures = [var.architecture]
  handler       = "index.handler"
  memory_size   = var.memory_size
  timeout       = var.timeout

  filename         = data.archive_file.placeholder.output_path
  source_code_hash = data.archive_file.placeholder.output_base64sha256

  tracing_config {
    mode = var.tracing_mode
  }

  logging_config {
    log_format = "JSON"
    log_group  = aws_cloudwatch_log_group.this.name
  }

  tags = var.tags

  depends_on = [
    aws_iam_role_policy_attachment.basic,
    aws_cloudwatch_log_group.this,
  ]

  lifecycle {
    ignore_changes = [filename, source_code_hash]
  }
}
