package ies.rules.plan_data_destroy_test

database(action) := {"address": "module.rds[0].aws_db_instance.this", "type": "aws_db_instance", "action": action, "attributes": ["engine_version"], "holdsData": true}

production := {"labels": {"tier": "production"}, "services": {}}

passing := {"environment": production, "plan": {"resources": [database("update"), {"address": "aws_security_group.x", "type": "aws_security_group", "action": "delete", "attributes": [], "holdsData": false}]}}

failing := {"environment": production, "plan": {"resources": [database("replace")]}}

allowed := {"environment": {"labels": {"tier": "production", "allow-data-destroy": "true"}, "services": {}}, "plan": {"resources": [database("delete")]}}

staging := {"environment": {"labels": {"tier": "staging"}, "services": {}}, "plan": {"resources": [database("delete")]}}

test_passing_configuration_has_no_violation if {
	not any_violation with input as passing
}

test_failing_configuration_is_refused_at_its_field if {
	some v in data.ies.violations with input as failing
	v.rule == "plan_data_destroy"
	v.level == "deny"
	v.field == "module.rds[0].aws_db_instance.this"
}

test_label_allows_it if {
	not any_violation with input as allowed
}

test_other_tiers_warn if {
	some v in data.ies.violations with input as staging
	v.rule == "plan_data_destroy"
	v.level == "warn"
}

test_no_plan_no_violation if {
	not any_violation with input as {"environment": production}
}

any_violation if {
	some v in data.ies.violations
	v.rule == "plan_data_destroy"
}
