# The entry point IES evaluates (`ies/violations`): every rule's `deny` and `warn` under
# `data.ies.rules.<rule>`, each with its rule's name and level. Write rules, not this file
# (docs/policies.md).
package ies

# A rule's violation as IES reads it: `field` (a configuration path such as services.rds.multiAz),
# optional `fields` (more paths it concerns), `message`. A plain string is a message about the
# whole environment.
violation(rule, level, found) := object.union({"field": "", "fields": []}, object.union(found, {"rule": rule, "level": level})) if {
	is_object(found)
}

violation(rule, level, found) := {"rule": rule, "level": level, "field": "", "fields": [], "message": found} if {
	is_string(found)
}

violations contains violation(rule, "deny", found) if {
	some rule
	some found in data.ies.rules[rule].deny
}

violations contains violation(rule, "warn", found) if {
	some rule
	some found in data.ies.rules[rule].warn
}
