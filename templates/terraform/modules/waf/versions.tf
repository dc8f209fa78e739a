terraform {
  required_version = ">= 1.11.0, < 2.0.0"

  # Instantiate with the us-east-1 provider: CloudFront web ACLs live there.
  required_providers {
    aws = {
      source  = "hashicorp/aws"
      version = "~> 5.100.0"
    }
  }
}
