# Production functions keep their logs at least a year (365 days).
# Field: services.lambda.logRetentionDays
package ies.rules.lambda_log_retention

import data.ies.lib

deny contains {"field": "services.lambda.logRetentionDays", "message": sprintf("production function logs are kept at least 365 days (now %v)", [days])} if {
	lib.production
	days := object.get(lib.enabled("lambda"), "logRetentionDays", 0)
	days < 365
}
