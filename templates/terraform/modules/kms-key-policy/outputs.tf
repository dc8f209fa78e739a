output "json" {
  description = "The key policy document."
  value       = data.aws_iam_policy_document.this.json
}
