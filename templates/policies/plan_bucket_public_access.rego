# A bucket the plan creates comes with its public access block (every bucket of the templates has
# one), and a plan does not remove the public access block of a bucket it keeps: without the block a
# bucket policy or an ACL can make the objects public.
# Reads: input.plan (the push's plan); the finding's field is the bucket or block address.
package ies.rules.plan_bucket_public_access

# The module part of an address (`module.s3[0].`; "" at the root), before its resource type.
module_of(address, type) := split(address, sprintf("%s.", [type]))[0]

blocked(module) if {
	some r in input.plan.resources
	r.type == "aws_s3_bucket_public_access_block"
	r.action in {"create", "update", "no-op"}
	module_of(r.address, r.type) == module
}

bucket_removed(module) if {
	some r in input.plan.resources
	r.type == "aws_s3_bucket"
	r.action == "delete"
	module_of(r.address, r.type) == module
}

deny contains {"field": r.address, "message": sprintf("the plan creates the bucket %s without a public access block (aws_s3_bucket_public_access_block)", [r.address])} if {
	some r in input.plan.resources
	r.type == "aws_s3_bucket"
	r.action == "create"
	not blocked(module_of(r.address, r.type))
}

deny contains {"field": r.address, "message": sprintf("the plan removes the public access block %s of a bucket it keeps", [r.address])} if {
	some r in input.plan.resources
	r.type == "aws_s3_bucket_public_access_block"
	r.action == "delete"
	not bucket_removed(module_of(r.address, r.type))
}
