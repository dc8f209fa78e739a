# Production Aurora keeps automated backups at least 7 days, as RDS does.
# Field: services.aurora.backupRetentionDays
package ies.rules.aurora_backup_retention

import data.ies.lib

deny contains {"field": "services.aurora.backupRetentionDays", "message": sprintf("a production Aurora cluster keeps backups at least 7 days (now %v)", [days])} if {
	lib.production
	days := object.get(lib.enabled("aurora"), "backupRetentionDays", 0)
	days < 7
}
