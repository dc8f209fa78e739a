package ies.rules.plan_bucket_public_access_test

change(address, type, action) := {"address": address, "type": type, "action": action, "attributes": [], "holdsData": type == "aws_s3_bucket"}

environment := {"labels": {"tier": "development"}, "services": {}}

passing := {"environment": environment, "plan": {"resources": [
	change("module.s3[0].aws_s3_bucket.this", "aws_s3_bucket", "create"),
	change("module.s3[0].aws_s3_bucket_public_access_block.this", "aws_s3_bucket_public_access_block", "create"),
	change("module.logs.aws_s3_bucket.this", "aws_s3_bucket", "delete"),
	change("module.logs.aws_s3_bucket_public_access_block.this", "aws_s3_bucket_public_access_block", "delete"),
]}}

failing := {"environment": environment, "plan": {"resources": [
	change("module.s3[0].aws_s3_bucket.this", "aws_s3_bucket", "create"),
	change("module.cdn.aws_s3_bucket_public_access_block.origin", "aws_s3_bucket_public_access_block", "create"),
]}}

removed := {"environment": environment, "plan": {"resources": [change("aws_s3_bucket_public_access_block.x", "aws_s3_bucket_public_access_block", "delete")]}}

test_passing_configuration_has_no_violation if {
	not any_violation with input as passing
}

test_failing_configuration_is_refused_at_its_field if {
	some v in data.ies.violations with input as failing
	v.rule == "plan_bucket_public_access"
	v.level == "deny"
	v.field == "module.s3[0].aws_s3_bucket.this"
}

test_removed_block_is_refused if {
	some v in data.ies.violations with input as removed
	v.rule == "plan_bucket_public_access"
	v.field == "aws_s3_bucket_public_access_block.x"
}

any_violation if {
	some v in data.ies.violations
	v.rule == "plan_bucket_public_access"
}
