# Production networks keep flow logs at least a year (365 days), the span audits usually ask for.
# Fields: services.vpc.flowLogRetentionDays, services.vpc.flowLogs
package ies.rules.vpc_flow_log_retention

import data.ies.lib

deny contains {"field": "services.vpc.flowLogs", "message": "a production network keeps flow logs: turn on Flow logs"} if {
	lib.production
	object.get(lib.enabled("vpc"), "flowLogs", false) != true
}

deny contains {"field": "services.vpc.flowLogRetentionDays", "message": sprintf("production flow logs are kept at least 365 days (now %v)", [days])} if {
	lib.production
	vpc := lib.enabled("vpc")
	object.get(vpc, "flowLogs", false) == true
	days := object.get(vpc, "flowLogRetentionDays", 0)
	days < 365
}
