package ies.rules.tier_label_test

passing := {"environment": {"labels": {"tier": "development"}, "services": {}}}

failing := {"environment": {"labels": {}, "services": {}}}

test_passing_configuration_has_no_violation if {
	not any_violation with input as passing
}

test_failing_configuration_is_refused_at_its_field if {
	some v in data.ies.violations with input as failing
	v.rule == "tier_label"
	v.level == "warn"
	v.field == "labels.tier"
}

any_violation if {
	some v in data.ies.violations
	v.rule == "tier_label"
}
