terraform {
  # 1.11 is the first release with S3-native state locking (use_lockfile).
  required_version = ">= 1.11.0, < 2.0.0"

  required_providers {
    aws = {
      source  = "hashicorp/aws"
      version = "~> 5.100.0"
    }
    archive = {
      source  = "hashicorp/archive"
      version = "~> 2.7.0"
    }
  }

  # The state backend is not part of the template: the generation job writes backend.tf
  # (S3, key env/<environment_id>/aws.tfstate, use_lockfile = true). See README.md, "The state".
}
