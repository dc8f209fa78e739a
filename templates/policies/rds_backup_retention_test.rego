package ies.rules.rds_backup_retention_test

passing := {"environment": {"labels": {"tier": "production"}, "services": {"rds": {"enabled": true, "backupRetentionDays": 7}}}}

failing := {"environment": {"labels": {"tier": "production"}, "services": {"rds": {"enabled": true, "backupRetentionDays": 3}}}}

test_passing_configuration_has_no_violation if {
	not any_violation with input as passing
}

test_failing_configuration_is_refused_at_its_field if {
	some v in data.ies.violations with input as failing
	v.rule == "rds_backup_retention"
	v.level == "deny"
	v.field == "services.rds.backupRetentionDays"
}

any_violation if {
	some v in data.ies.violations
	v.rule == "rds_backup_retention"
}
