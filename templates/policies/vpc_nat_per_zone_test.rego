package ies.rules.vpc_nat_per_zone_test

passing := {"environment": {"labels": {"tier": "production"}, "services": {"vpc": {"enabled": true, "singleNatGateway": false}}}}

failing := {"environment": {"labels": {"tier": "production"}, "services": {"vpc": {"enabled": true, "singleNatGateway": true}}}}

test_passing_configuration_has_no_violation if {
	not any_violation with input as passing
}

test_failing_configuration_is_refused_at_its_field if {
	some v in data.ies.violations with input as failing
	v.rule == "vpc_nat_per_zone"
	v.level == "deny"
	v.field == "services.vpc.singleNatGateway"
}

any_violation if {
	some v in data.ies.violations
	v.rule == "vpc_nat_per_zone"
}
