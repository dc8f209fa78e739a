# Production PostgreSQL (RDS) keeps automated backups at least 7 days: a week of point-in-time
# recovery covers a bad change found after a weekend. Other tiers: a warning under 7 days.
# Field: services.rds.backupRetentionDays
package ies.rules.rds_backup_retention

import data.ies.lib

deny contains {"field": "services.rds.backupRetentionDays", "message": sprintf("a production database keeps backups at least 7 days (now %v)", [days])} if {
	lib.production
	days := object.get(lib.enabled("rds"), "backupRetentionDays", 0)
	days < 7
}

warn contains {"field": "services.rds.backupRetentionDays", "message": sprintf("backups are kept %v days; 7 or more recover from a change found late", [days])} if {
	not lib.production
	days := object.get(lib.enabled("rds"), "backupRetentionDays", 0)
	days < 7
}
