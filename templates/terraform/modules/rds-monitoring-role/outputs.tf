output "arn" {
  description = "ARN of the role (monitoring_role_arn). Read after the policy is attached."
  value       = aws_iam_role.this.arn

  depends_on = [aws_iam_role_policy_attachment.this]
}
