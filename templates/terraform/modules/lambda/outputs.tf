output "function_name" {
  description = "Name of the function."
  value       = aws_lambda_function.this.function_name
}

output "function_arn" {
  description = "ARN of the function."
  value       = aws_lambda_function.this.arn
}

output "role_arn" {
  description = "Execution role; attach further policies to it."
  value       = aws_iam_role.this.arn
}
