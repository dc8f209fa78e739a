package ies.rules.vpc_flow_log_retention_test

passing := {"environment": {"labels": {"tier": "production"}, "services": {"vpc": {"enabled": true, "flowLogs": true, "flowLogRetentionDays": 365}}}}

failing := {"environment": {"labels": {"tier": "production"}, "services": {"vpc": {"enabled": true, "flowLogs": true, "flowLogRetentionDays": 90}}}}

test_passing_configuration_has_no_violation if {
	not any_violation with input as passing
}

test_failing_configuration_is_refused_at_its_field if {
	some v in data.ies.violations with input as failing
	v.rule == "vpc_flow_log_retention"
	v.level == "deny"
	v.field == "services.vpc.flowLogRetentionDays"
}

any_violation if {
	some v in data.ies.violations
	v.rule == "vpc_flow_log_retention"
}
