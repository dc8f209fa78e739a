output "repository_urls" {
  description = "Repository URLs by short name."
  value       = { for name, repo in aws_ecr_repository.this : name => repo.repository_url }
}
