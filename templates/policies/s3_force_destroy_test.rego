package ies.rules.s3_force_destroy_test

passing := {"environment": {"labels": {"tier": "production"}, "services": {"s3": {"enabled": true, "forceDestroy": false}}}}

failing := {"environment": {"labels": {"tier": "production"}, "services": {"s3": {"enabled": true, "forceDestroy": true}}}}

test_passing_configuration_has_no_violation if {
	not any_violation with input as passing
}

test_failing_configuration_is_refused_at_its_field if {
	some v in data.ies.violations with input as failing
	v.rule == "s3_force_destroy"
	v.level == "deny"
	v.field == "services.s3.forceDestroy"
}

any_violation if {
	some v in data.ies.violations
	v.rule == "s3_force_destroy"
}
