package ies.rules.ecr_scan_on_push_test

passing := {"environment": {"labels": {"tier": "development"}, "services": {"ecr": {"enabled": true, "scanOnPush": true}}}}

failing := {"environment": {"labels": {"tier": "development"}, "services": {"ecr": {"enabled": true, "scanOnPush": false}}}}

test_passing_configuration_has_no_violation if {
	not any_violation with input as passing
}

test_failing_configuration_is_refused_at_its_field if {
	some v in data.ies.violations with input as failing
	v.rule == "ecr_scan_on_push"
	v.level == "warn"
	v.field == "services.ecr.scanOnPush"
}

any_violation if {
	some v in data.ies.violations
	v.rule == "ecr_scan_on_push"
}
