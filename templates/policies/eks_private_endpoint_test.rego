package ies.rules.eks_private_endpoint_test

passing := {"environment": {"labels": {"tier": "production"}, "services": {"eks": {"enabled": true, "endpointPublicAccess": false}}}}

failing := {"environment": {"labels": {"tier": "production"}, "services": {"eks": {"enabled": true, "endpointPublicAccess": true}}}}

test_passing_configuration_has_no_violation if {
	not any_violation with input as passing
}

test_failing_configuration_is_refused_at_its_field if {
	some v in data.ies.violations with input as failing
	v.rule == "eks_private_endpoint"
	v.level == "deny"
	v.field == "services.eks.endpointPublicAccess"
}

any_violation if {
	some v in data.ies.violations
	v.rule == "eks_private_endpoint"
}
