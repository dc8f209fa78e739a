package ies.rules.aurora_backup_retention_test

passing := {"environment": {"labels": {"tier": "production"}, "services": {"aurora": {"enabled": true, "backupRetentionDays": 14}}}}

failing := {"environment": {"labels": {"tier": "production"}, "services": {"aurora": {"enabled": true, "backupRetentionDays": 1}}}}

test_passing_configuration_has_no_violation if {
	not any_violation with input as passing
}

test_failing_configuration_is_refused_at_its_field if {
	some v in data.ies.violations with input as failing
	v.rule == "aurora_backup_retention"
	v.level == "deny"
	v.field == "services.aurora.backupRetentionDays"
}

any_violation if {
	some v in data.ies.violations
	v.rule == "aurora_backup_retention"
}
