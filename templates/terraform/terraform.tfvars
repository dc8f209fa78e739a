# Parameter values of the AWS stack: the single file the catalog extractor scans.
# Every "@param" sits directly above the value line it replaces; every service's block
# is gated by "@section services.<key>.enabled" (a disabled service's lines are commented
# out and the variable defaults in variables.tf apply). See README.md at the root.

# --- Environment -------------------------------------------------------------

# @param name | displayName=Environment name | description=Name of the environment; part of every resource name. | type=text | pattern=^[a-z][a-z0-9-]{2,49}$ | default=demo
name = "demo"

# @param globalPrefix | displayName=Global prefix | description=Prefix of every resource name, before the environment name. | type=text | pattern=^[a-z](-?[a-z0-9]){1,19}$ | default=ies
global_prefix = "ies"

# @param region | displayName=AWS region | description=Region the stack is deployed to. | type=text | pattern=^[a-z]{2}(-[a-z]+)+-[0-9]$ | default=eu-west-1
region = "eu-west-1"

# @param domain | displayName=Domain | description=DNS domain for the delivery, dashboard and metrics tools; empty creates no host-based ingress and no DNS records. | type=text | pattern=^(([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?[.])+[a-z]{2,63})?$ | default=
domain = ""

# --- VPC: Network with public and private subnets, NAT and flow logs ---------

# @module services.vpc | displayName=VPC | category=Networking | description=Network with public and private subnets, NAT and flow logs | diagram=network
# @section services.vpc.enabled begin

# @param services.vpc.cidr | displayName=CIDR block | description=IPv4 range of the VPC; subnets are carved from it as /20 blocks. | type=text | pattern=^([0-9]{1,3}[.]){3}[0-9]{1,3}/[12][0-9]$ | default=10.0.0.0/16
vpc_cidr = "10.0.0.0/16"

# @param services.vpc.azCount | displayName=Availability zones | description=Number of availability zones the subnets span. | type=dropdown | options=[{"value":2,"label":"2"},{"value":3,"label":"3"}] | default=3
vpc_az_count = 3

# @param services.vpc.singleNatGateway | displayName=Single NAT gateway | description=One shared NAT gateway (cheaper) instead of one per zone (highly available). | type=toggle | default=true
vpc_single_nat_gateway = true

# @param services.vpc.flowLogs | displayName=Flow logs | description=Record all VPC traffic to CloudWatch Logs. | type=toggle | default=true
vpc_enable_flow_logs = true

# @param services.vpc.flowLogRetentionDays | displayName=Flow log retention (days) | description=Days flow logs are kept (KMS-encrypted); a year or more is what audits expect. | type=dropdown | options=[{"value":30,"label":"30"},{"value":90,"label":"90"},{"value":180,"label":"180"},{"value":365,"label":"365 (1 year)"},{"value":731,"label":"731 (2 years)"},{"value":1827,"label":"1827 (5 years)"}] | default=365 | unit=days
vpc_flow_log_retention_days = 365

# @section services.vpc.enabled end

# --- EKS: Kubernetes cluster with a managed node group and IRSA --------------

# @module services.eks | displayName=EKS | category=Compute | description=Kubernetes cluster with a managed node group and IRSA | diagram=cluster | within=vpc | connects=ecr:pulls images,rds,aurora,elasticache,msk,opensearch | synonyms=k8s
# @section services.eks.enabled begin

# @param services.eks.kubernetesVersion | displayName=Kubernetes version | description=Minor version of the control plane and nodes; versions past AWS standard support (14 months) cost about six times more per cluster hour. | type=dropdown | options=[{"value":"1.35","label":"1.35 (standard support until March 2027)"},{"value":"1.36","label":"1.36"}] | default=1.35
eks_kubernetes_version = "1.35"

# @param services.eks.nodeInstanceType | displayName=Node instance type | description=EC2 instance type of the managed node group. | type=dropdown | options=[{"value":"t3.large","label":"t3.large"},{"value":"m6i.large","label":"m6i.large"},{"value":"m6i.xlarge","label":"m6i.xlarge"},{"value":"m7g.large","label":"m7g.large (Graviton)"},{"value":"c6i.xlarge","label":"c6i.xlarge"}] | default=m6i.large
eks_node_instance_type = "m6i.large"

# @param services.eks.nodeCapacityType | displayName=Node capacity type | description=On-demand or spot instances. | type=dropdown | options=[{"value":"ON_DEMAND","label":"On-demand"},{"value":"SPOT","label":"Spot"}] | default=ON_DEMAND
eks_node_capacity_type = "ON_DEMAND"

# @param services.eks.nodeMinSize | displayName=Minimum nodes | description=Lower bound of the node group. | type=number | pattern=^[0-9]+$ | default=2 | atMost=nodeMaxSize
eks_node_min_size = 2

# @param services.eks.nodeMaxSize | displayName=Maximum nodes | description=Upper bound of the node group. | type=number | pattern=^[1-9][0-9]*$ | default=5
eks_node_max_size = 5

# @param services.eks.nodeDesiredSize | displayName=Initial nodes | description=Nodes at creation; the autoscaler owns the count afterwards. | type=number | pattern=^[0-9]+$ | default=2 | atLeast=nodeMinSize | atMost=nodeMaxSize
eks_node_desired_size = 2

# @param services.eks.nodeDiskSize | displayName=Node disk size (GiB) | description=Encrypted gp3 root volume of each node. | type=number | pattern=^[1-9][0-9]*$ | default=50 | unit=GiB | synonyms=disk, root volume
eks_node_disk_size = 50

# @param services.eks.endpointPublicAccess | displayName=Public API endpoint | description=Also expose the Kubernetes API on a public endpoint, reachable only from the CIDR blocks below; the private endpoint is always on. | type=toggle | default=false
eks_endpoint_public_access = false

# @param services.eks.publicAccessCidrs | displayName=Public API allowed CIDR blocks | description=Comma-separated IPv4 CIDR blocks allowed to reach the public API endpoint (for example 203.0.113.0/24); required when the public endpoint is on, 0.0.0.0/0 is refused. | type=text | pattern=^(([0-9]{1,3}[.]){3}[0-9]{1,3}/[0-9]{1,2}(,([0-9]{1,3}[.]){3}[0-9]{1,3}/[0-9]{1,2})*)?$ | default=
eks_public_access_cidrs = ""

# @section services.eks.enabled end

# --- RDS PostgreSQL: PostgreSQL instance -------------------------------------

# @module services.rds | displayName=RDS PostgreSQL | category=Databases | description=PostgreSQL database instance | diagram=database | within=vpc
# @section services.rds.enabled begin

# @param services.rds.engineVersion | displayName=PostgreSQL version | description=Major version; RDS picks its current minor version and applies later minors in the maintenance window. | type=dropdown | options=[{"value":"16","label":"PostgreSQL 16"},{"value":"17","label":"PostgreSQL 17"},{"value":"18","label":"PostgreSQL 18"}] | default=17
rds_engine_version = "17"

# @param services.rds.instanceClass | displayName=Instance class | description=Compute and memory of the instance. | type=dropdown | options=[{"value":"db.t4g.micro","label":"db.t4g.micro"},{"value":"db.t4g.medium","label":"db.t4g.medium"},{"value":"db.m7g.large","label":"db.m7g.large"},{"value":"db.r7g.large","label":"db.r7g.large"}] | default=db.t4g.medium
rds_instance_class = "db.t4g.medium"

# @param services.rds.allocatedStorage | displayName=Storage (GiB) | description=Initial gp3 storage. | type=number | pattern=^[1-9][0-9]*$ | default=20 | atLeast=20 | atMost=maxAllocatedStorage | unit=GiB | synonyms=disk, database size
rds_allocated_storage = 20

# @param services.rds.maxAllocatedStorage | displayName=Storage autoscaling limit (GiB) | description=Storage grows automatically up to this size. | type=number | pattern=^[1-9][0-9]*$ | default=100 | unit=GiB | synonyms=grow up to, autoscaling
rds_max_allocated_storage = 100

# @param services.rds.multiAz | displayName=Multi-AZ | description=Keep a synchronous standby in another availability zone. | type=toggle | default=false
rds_multi_az = false

# @param services.rds.backupRetentionDays | displayName=Backup retention (days) | description=Point-in-time recovery window. | type=number | pattern=^[1-9][0-9]?$ | default=7 | atMost=35 | unit=days | synonyms=backups, point-in-time recovery
rds_backup_retention_days = 7

# @param services.rds.deletionProtection | displayName=Deletion protection | description=Refuse to delete the instance until this is turned off. | type=toggle | default=true
rds_deletion_protection = true

# @section services.rds.enabled end

# --- Aurora PostgreSQL: Aurora PostgreSQL Serverless v2 cluster --------------

# @module services.aurora | displayName=Aurora PostgreSQL | category=Databases | description=Aurora PostgreSQL Serverless v2 database cluster that scales with load | diagram=database | within=vpc
# @section services.aurora.enabled begin

# @param services.aurora.engineVersion | displayName=Engine version | description=Aurora PostgreSQL major version; Aurora picks its current minor version and applies later minors in the maintenance window. | type=dropdown | options=[{"value":"16","label":"Aurora PostgreSQL 16"},{"value":"17","label":"Aurora PostgreSQL 17"}] | default=17
aurora_engine_version = "17"

# @param services.aurora.instanceCount | displayName=Instances | description=One writer plus readers. | type=number | pattern=^[1-9]$ | default=2
aurora_instance_count = 2

# @param services.aurora.minCapacity | displayName=Minimum ACUs | description=Smallest Serverless v2 capacity per instance. | type=number | pattern=^[0-9]+([.]5)?$ | default=0.5 | atMost=maxCapacity
aurora_min_capacity = 0.5

# @param services.aurora.maxCapacity | displayName=Maximum ACUs | description=Largest Serverless v2 capacity per instance. | type=number | pattern=^[0-9]+([.]5)?$ | default=4 | atLeast=1 | atMost=256
aurora_max_capacity = 4

# @param services.aurora.backupRetentionDays | displayName=Backup retention (days) | description=Point-in-time recovery window. | type=number | pattern=^[1-9][0-9]?$ | default=7 | atMost=35 | unit=days | synonyms=backups, point-in-time recovery
aurora_backup_retention_days = 7

# @param services.aurora.deletionProtection | displayName=Deletion protection | description=Refuse to delete the cluster until this is turned off. | type=toggle | default=true
aurora_deletion_protection = true

# @section services.aurora.enabled end

# --- ElastiCache (Valkey): Valkey replication group --------------------------

# @module services.elasticache | displayName=ElastiCache (Valkey) | category=Databases | description=Valkey (Redis-compatible) in-memory cache replication group | diagram=cache | within=vpc
# @section services.elasticache.enabled begin

# @param services.elasticache.engineVersion | displayName=Valkey version | description=Engine version. | type=dropdown | options=[{"value":"7.2","label":"Valkey 7.2"},{"value":"8.0","label":"Valkey 8.0"}] | default=8.0
elasticache_engine_version = "8.0"

# @param services.elasticache.nodeType | displayName=Node type | description=Cache node size. | type=dropdown | options=[{"value":"cache.t4g.micro","label":"cache.t4g.micro"},{"value":"cache.t4g.small","label":"cache.t4g.small"},{"value":"cache.m7g.large","label":"cache.m7g.large"},{"value":"cache.r7g.large","label":"cache.r7g.large"}] | default=cache.t4g.small
elasticache_node_type = "cache.t4g.small"

# @param services.elasticache.nodeCount | displayName=Nodes | description=Primary plus replicas; two or more enables automatic failover. | type=number | pattern=^[1-6]$ | default=2
elasticache_num_cache_clusters = 2

# @param services.elasticache.snapshotRetentionDays | displayName=Snapshot retention (days) | description=Days automatic snapshots are kept; 0 turns them off. | type=number | pattern=^[0-9]+$ | default=5 | atMost=35 | unit=days | synonyms=snapshots, backups
elasticache_snapshot_retention_days = 5

# @section services.elasticache.enabled end

# --- MSK (Kafka): Managed Kafka cluster with IAM authentication --------------

# @module services.msk | displayName=MSK (Kafka) | category=Messaging | description=Managed Kafka cluster for event streaming, with IAM authentication | diagram=stream | within=vpc
# @section services.msk.enabled begin

# @param services.msk.kafkaVersion | displayName=Kafka version | description=Apache Kafka version; the .x versions take MSK's patch releases automatically. | type=dropdown | options=[{"value":"3.8.x","label":"3.8.x"},{"value":"3.9.x","label":"3.9.x"}] | default=3.9.x
msk_kafka_version = "3.9.x"

# @param services.msk.brokerInstanceType | displayName=Broker instance type | description=Size of each broker. | type=dropdown | options=[{"value":"kafka.t3.small","label":"kafka.t3.small"},{"value":"kafka.m7g.large","label":"kafka.m7g.large"},{"value":"kafka.m7g.xlarge","label":"kafka.m7g.xlarge"}] | default=kafka.m7g.large
msk_broker_instance_type = "kafka.m7g.large"

# @param services.msk.brokersPerAz | displayName=Brokers per zone | description=Brokers in each availability zone. | type=number | pattern=^[1-9]$ | default=1
msk_brokers_per_az = 1

# @param services.msk.volumeSize | displayName=Storage per broker (GiB) | description=EBS volume of each broker. | type=number | pattern=^[1-9][0-9]*$ | default=100 | unit=GiB | synonyms=disk, broker storage
msk_ebs_volume_size = 100

# @section services.msk.enabled end

# --- OpenSearch: OpenSearch domain inside the VPC ----------------------------

# @module services.opensearch | displayName=OpenSearch | category=Analytics | description=OpenSearch (Elasticsearch-compatible) search and log analytics domain inside the VPC | diagram=search | within=vpc
# @section services.opensearch.enabled begin

# @param services.opensearch.engineVersion | displayName=Engine version | description=OpenSearch version. | type=dropdown | options=[{"value":"OpenSearch_2.13","label":"OpenSearch_2.13"},{"value":"OpenSearch_2.17","label":"OpenSearch_2.17"}] | default=OpenSearch_2.17
opensearch_engine_version = "OpenSearch_2.17"

# @param services.opensearch.instanceType | displayName=Instance type | description=Data node size. | type=dropdown | options=[{"value":"t3.medium.search","label":"t3.medium.search"},{"value":"m6g.large.search","label":"m6g.large.search"},{"value":"r6g.large.search","label":"r6g.large.search"}] | default=r6g.large.search
opensearch_instance_type = "r6g.large.search"

# @param services.opensearch.instanceCount | displayName=Data nodes | description=Two or more spreads the nodes over two availability zones. | type=number | pattern=^[1-9][0-9]*$ | default=2
opensearch_instance_count = 2

# @param services.opensearch.volumeSize | displayName=Storage per node (GiB) | description=gp3 volume of each data node. | type=number | pattern=^[1-9][0-9]*$ | default=20 | unit=GiB | synonyms=disk
opensearch_ebs_volume_size = 20

# @section services.opensearch.enabled end

# --- S3: Private, encrypted, versioned bucket --------------------------------

# @module services.s3 | displayName=S3 | category=Storage | description=Private, encrypted, versioned object storage bucket | diagram=storage
# @section services.s3.enabled begin

# @param services.s3.bucketSuffix | displayName=Bucket name suffix | description=Bucket name is <prefix>-<name>-<suffix>-<account id>. | type=text | pattern=^[a-z0-9][a-z0-9-]{0,19}$ | default=data
s3_bucket_suffix = "data"

# @param services.s3.versioning | displayName=Versioning | description=Keep every version of every object. | type=toggle | default=true
s3_versioning = true

# @param services.s3.encryption | displayName=Encryption | description=Server-side encryption of objects. | type=dropdown | options=[{"value":"aws:kms","label":"KMS (customer managed key)"},{"value":"AES256","label":"S3 managed keys"}] | default=aws:kms
s3_encryption = "aws:kms"

# @param services.s3.noncurrentVersionExpirationDays | displayName=Old versions kept (days) | description=Days before noncurrent object versions are deleted. | type=number | pattern=^[1-9][0-9]*$ | default=90 | unit=days | synonyms=old versions, previous versions, noncurrent versions
s3_noncurrent_version_expiration_days = 90

# @param services.s3.forceDestroy | displayName=Force destroy | description=Let Terraform delete the bucket together with its objects. | type=toggle | default=false
s3_force_destroy = false

# @section services.s3.enabled end

# --- SNS: Encrypted notification topic ---------------------------------------

# @module services.sns | displayName=SNS | category=Messaging | description=Encrypted notification topic for pub/sub fan-out and alerts | diagram=topic
# @section services.sns.enabled begin

# @param services.sns.topicName | displayName=Topic name | description=Last part of the topic name. | type=text | pattern=^[A-Za-z0-9_-]{1,64}$ | default=events
sns_topic_name = "events"

# @param services.sns.fifo | displayName=FIFO topic | description=Ordered, deduplicated delivery. | type=toggle | default=false
sns_fifo = false

# @param services.sns.alertEmail | displayName=Alert e-mail | description=Address subscribed to the topic; empty subscribes nobody. | type=text | pattern=^([^@ ]+@[^@ ]+[.][a-z]{2,})?$ | default=
sns_alert_email = ""

# @section services.sns.enabled end

# --- SQS: Queue with a dead-letter queue -------------------------------------

# @module services.sqs | displayName=SQS | category=Messaging | description=Message queue with a dead-letter queue | diagram=queue
# @section services.sqs.enabled begin

# @param services.sqs.queueName | displayName=Queue name | description=Last part of the queue name. | type=text | pattern=^[A-Za-z0-9_-]{1,60}$ | default=jobs
sqs_queue_name = "jobs"

# @param services.sqs.fifo | displayName=FIFO queue | description=Exactly-once, ordered processing. | type=toggle | default=false
sqs_fifo = false

# @param services.sqs.visibilityTimeoutSeconds | displayName=Visibility timeout (s) | description=Time a received message stays hidden from other consumers. | type=number | pattern=^[0-9]+$ | default=30 | atMost=43200 | unit=s | synonyms=visibility, hidden
sqs_visibility_timeout_seconds = 30

# @param services.sqs.messageRetentionSeconds | displayName=Message retention (s) | description=Time an unprocessed message is kept (60 to 1209600). | type=number | pattern=^[0-9]+$ | default=345600 | atLeast=60 | atMost=1209600 | unit=s | synonyms=retention, survive, kept, keep messages
sqs_message_retention_seconds = 345600

# @param services.sqs.maxReceiveCount | displayName=Receives before dead-letter | description=Failed receives before a message moves to the dead-letter queue. | type=number | pattern=^[1-9][0-9]*$ | default=5
sqs_max_receive_count = 5

# @section services.sqs.enabled end

# --- Lambda: Function with logging and tracing -------------------------------

# @module services.lambda | displayName=Lambda | category=Compute | description=Serverless function with logging and tracing | diagram=compute | synonyms=faas, functions
# @section services.lambda.enabled begin

# @param services.lambda.runtime | displayName=Runtime | description=Node.js runtime. | type=dropdown | options=[{"value":"nodejs20.x","label":"Node.js 20"},{"value":"nodejs22.x","label":"Node.js 22"}] | default=nodejs22.x
lambda_runtime = "nodejs22.x"

# @param services.lambda.architecture | displayName=Architecture | description=arm64 (Graviton, cheaper) or x86_64. | type=dropdown | options=[{"value":"arm64","label":"arm64 (Graviton)"},{"value":"x86_64","label":"x86_64"}] | default=arm64
lambda_architecture = "arm64"

# @param services.lambda.memorySize | displayName=Memory (MB) | description=Memory, and proportional CPU, of the function. | type=number | pattern=^[1-9][0-9]{2,4}$ | default=256 | atLeast=128 | atMost=10240 | unit=MiB | synonyms=memory, ram
lambda_memory_size = 256

# @param services.lambda.timeout | displayName=Timeout (s) | description=Maximum run time of one invocation (up to 900). | type=number | pattern=^[1-9][0-9]{0,2}$ | default=30 | atMost=900 | unit=s | synonyms=run time, runtime limit, max duration
lambda_timeout = 30

# @param services.lambda.logRetentionDays | displayName=Log retention (days) | description=Days the function logs are kept (KMS-encrypted); a year or more is what audits expect. | type=dropdown | options=[{"value":30,"label":"30"},{"value":90,"label":"90"},{"value":180,"label":"180"},{"value":365,"label":"365 (1 year)"},{"value":731,"label":"731 (2 years)"},{"value":1827,"label":"1827 (5 years)"}] | default=365 | unit=days
lambda_log_retention_days = 365

# @param services.lambda.tracingMode | displayName=X-Ray tracing | description=Active samples and traces requests; PassThrough only follows upstream decisions. | type=dropdown | options=[{"value":"Active","label":"Active"},{"value":"PassThrough","label":"PassThrough"}] | default=Active
lambda_tracing_mode = "Active"

# @section services.lambda.enabled end

# --- CloudFront: CDN with a private S3 origin --------------------------------

# @module services.cloudfront | displayName=CloudFront | category=Networking | description=CDN with a private S3 origin | diagram=cdn
# @section services.cloudfront.enabled begin

# @param services.cloudfront.priceClass | displayName=Price class | description=Which edge locations serve the content. | type=dropdown | options=[{"value":"PriceClass_100","label":"North America and Europe"},{"value":"PriceClass_200","label":"Most regions"},{"value":"PriceClass_All","label":"All edge locations"}] | default=PriceClass_100
cloudfront_price_class = "PriceClass_100"

# @param services.cloudfront.subdomain | displayName=Host name label | description=Distribution host is <label>.<domain> when a domain and Route53 are set. | type=text | pattern=^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$ | default=cdn
cloudfront_subdomain = "cdn"

# @param services.cloudfront.defaultRootObject | displayName=Default root object | description=Object returned for the root URL. | type=text | pattern=^[A-Za-z0-9._/-]+$ | default=index.html
cloudfront_default_root_object = "index.html"

# @section services.cloudfront.enabled end

# --- ECR: Container image repositories ---------------------------------------

# @module services.ecr | displayName=ECR | category=Containers | description=Container image registry: Docker image repositories | diagram=registry
# @section services.ecr.enabled begin

# @param services.ecr.repositoryNames | displayName=Repositories | description=Comma-separated repository names. | type=text | pattern=^[a-z0-9][a-z0-9._/-]*(,[a-z0-9][a-z0-9._/-]*)*$ | default=app
ecr_repository_names = "app"

# @param services.ecr.imageTagMutability | displayName=Tag mutability | description=Immutable tags cannot be overwritten. | type=dropdown | options=[{"value":"IMMUTABLE","label":"Immutable"},{"value":"MUTABLE","label":"Mutable"}] | default=IMMUTABLE
ecr_image_tag_mutability = "IMMUTABLE"

# @param services.ecr.scanOnPush | displayName=Scan on push | description=Scan every pushed image for vulnerabilities. | type=toggle | default=true
ecr_scan_on_push = true

# @param services.ecr.keepLastImages | displayName=Images kept | description=Images kept per repository; older ones expire. | type=number | pattern=^[1-9][0-9]*$ | default=30
ecr_keep_last_images = 30

# @section services.ecr.enabled end

# --- Route53: Hosted zone and certificate for the domain ---------------------

# @module services.route53 | displayName=Route53 | category=Networking | description=DNS hosted zone and TLS certificate for the domain | diagram=dns | connects=cloudfront:DNS name and certificate
# @section services.route53.enabled begin

# @param services.route53.wildcardCertificate | displayName=Wildcard certificate | description=Issue a DNS-validated certificate for the domain and *.domain. | type=toggle | default=true
route53_wildcard_certificate = true

# @param services.route53.forceDestroy | displayName=Force destroy | description=Let Terraform delete the zone with records it does not manage. | type=toggle | default=false
route53_force_destroy = false

# @param services.route53.queryLogging | displayName=DNS query logging | description=Log the queries resolvers send to the zone (CloudWatch Logs in us-east-1, KMS-encrypted, kept a year). | type=toggle | default=true
route53_query_logging = true

# @param services.route53.dnssec | displayName=DNSSEC signing | description=Sign the zone; then add the DS record (output route53_dnssec_ds_record) at the registrar. Remove it there before turning signing off. | type=toggle | default=false
route53_dnssec = false

# @section services.route53.enabled end

# --- WAF: Web ACL for CloudFront with managed rules and rate limiting --------

# @module services.waf | displayName=WAF | category=Security | description=Web application firewall: web ACL for CloudFront with managed rules and rate limiting | diagram=firewall | connects=cloudfront:protects
# @section services.waf.enabled begin

# @param services.waf.rateLimit | displayName=Rate limit | description=Requests per client IP in five minutes before it is blocked. | type=number | pattern=^[1-9][0-9]{1,8}$ | default=2000 | synonyms=throttle, requests per ip
waf_rate_limit = 2000

# @param services.waf.managedRulesMode | displayName=Managed rules mode | description=Enforce the AWS managed rule groups or only count their matches. | type=dropdown | options=[{"value":"block","label":"Block"},{"value":"count","label":"Count only"}] | default=block
waf_managed_rules_mode = "block"

# @section services.waf.enabled end
