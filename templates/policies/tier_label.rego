# Every environment says its tier: the rules for production apply only to an environment labelled
# `tier: production`, so one without a tier is a warning.
# Field: labels.tier
package ies.rules.tier_label

import data.ies.lib

warn contains {"field": "labels.tier", "message": "no tier label: set tier to production, staging or development so the right rules apply"} if {
	not input.environment.labels.tier
}
