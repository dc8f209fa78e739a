# A push's plan must not replace or destroy a resource that holds data (a database, a bucket, a
# volume) in production; in other tiers it is a warning. The push's own guard already asks for the
# addresses to be confirmed (confirmDestroy); this rule refuses it in production even then, until
# the environment is labelled `allow-data-destroy: "true"` (a change the history records).
# Reads: input.plan (the push's plan); the finding's field is the resource address.
package ies.rules.plan_data_destroy

import data.ies.lib

at_risk contains r if {
	some r in input.plan.resources
	r.holdsData == true
	r.action in {"delete", "replace"}
}

allowed if input.environment.labels["allow-data-destroy"] == "true"

deny contains {"field": r.address, "fields": [r.address, "labels.allow-data-destroy"], "message": sprintf("the plan would %s %s, which holds data, in production: label the environment allow-data-destroy=true to allow it", [r.action, r.address])} if {
	lib.production
	not allowed
	some r in at_risk
}

warn contains {"field": r.address, "message": sprintf("the plan would %s %s, which holds data", [r.action, r.address])} if {
	not lib.production
	some r in at_risk
}
