# Images are scanned for known vulnerabilities when pushed: a warning when scanning is off.
# Field: services.ecr.scanOnPush
package ies.rules.ecr_scan_on_push

import data.ies.lib

warn contains {"field": "services.ecr.scanOnPush", "message": "images are not scanned for known vulnerabilities: turn on Scan on push"} if {
	object.get(lib.enabled("ecr"), "scanOnPush", false) != true
}
