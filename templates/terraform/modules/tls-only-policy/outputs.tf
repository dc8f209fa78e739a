output "json" {
  description = "The policy document: only the DenyInsecureTransport statement."
  value       = data.aws_iam_policy_document.this.json
}
