package ies.rules.aurora_deletion_protection_test

passing := {"environment": {"labels": {"tier": "production"}, "services": {"aurora": {"enabled": true, "deletionProtection": true}}}}

failing := {"environment": {"labels": {"tier": "production"}, "services": {"aurora": {"enabled": true, "deletionProtection": false}}}}

test_passing_configuration_has_no_violation if {
	not any_violation with input as passing
}

test_failing_configuration_is_refused_at_its_field if {
	some v in data.ies.violations with input as failing
	v.rule == "aurora_deletion_protection"
	v.level == "deny"
	v.field == "services.aurora.deletionProtection"
}

any_violation if {
	some v in data.ies.violations
	v.rule == "aurora_deletion_protection"
}
