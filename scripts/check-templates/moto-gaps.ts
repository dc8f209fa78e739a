// What moto (the local AWS stand-in the apply test and the upgrade check run against) cannot do,
// by resource address (instance keys left out), in one list:
// - `create`: these, and only these, may be missing after an apply; each is kept out of the apply
//   (terraform apply -target of everything else) because its create call fails or never finishes in
//   moto. A resource that depends on one of them must be listed too: it cannot be created without it.
// - `destroy`: created, but moto cannot delete it; it is taken out of the state (terraform state rm)
//   before the destroy, which must then leave nothing.
// - `read`: created, but moto does not answer `attribute` back, so a later plan against that state
//   wants to replace it; the upgrade check does not count a replacement forced only by it.
//
// None of these is a fault of the templates: on real AWS each is created normally.

export interface MotoGap {
  /** Resource address without instance keys (module.x.aws_y.z). */
  address: string
  /** What moto cannot do with it. */
  when: 'create' | 'destroy' | 'read'
  /** For `read`: the top-level attribute moto does not answer back. */
  attribute?: string
  why: string
}

const EKS_ADDON_WHY = 'moto does not implement the EKS add-on API (CreateAddon answers 404 with an HTML page)'

export const MOTO_GAPS: readonly MotoGap[] = [
  ...['coredns', 'ebs_csi', 'kube_proxy', 'vpc_cni'].map((name) => ({
    address: `module.eks.aws_eks_addon.${name}`,
    when: 'create' as const,
    why: EKS_ADDON_WHY,
  })),
  {
    address: 'module.msk.aws_msk_cluster.this',
    when: 'create',
    why: 'moto creates the cluster in state CREATING and never moves it to ACTIVE; the provider waits for ACTIVE (up to 2 h)',
  },
  {
    address: 'module.opensearch.aws_opensearch_domain.this',
    when: 'create',
    why: 'moto leaves the domain processing; the provider waits for it to finish',
  },
  {
    address: 'module.sqs.aws_sqs_queue_redrive_allow_policy.dead_letter',
    when: 'create',
    why: 'moto does not store the RedriveAllowPolicy queue attribute; the provider waits to read it back',
  },
  {
    address: 'module.elasticache.aws_elasticache_replication_group.this',
    when: 'create',
    why: "moto creates the replication group but not its member clusters; the provider's read of member 001 answers CacheClusterNotFound",
  },
  {
    address: 'module.rds.aws_db_instance.this',
    when: 'create',
    why:
      'moto creates the instance but ignores the dbi-resource-id filter the provider reads it back with, so it answers every ' +
      'instance of the region and the provider, expecting one, reports "couldn\'t find resource" (the instance is tainted)',
  },
  {
    address: 'module.route53.aws_route53_query_log.this',
    when: 'create',
    why:
      'moto finds the log group only when its ARN ends in ":*" (it compares with the described ARN), while the provider passes ' +
      'the log group ARN as AWS documents it, without the suffix: NoSuchCloudWatchLogsLogGroup although the group exists in us-east-1 ' +
      '(the dependencies are right: the zone, the log group and its resource policy come first)',
  },
  {
    address: 'module.elasticache.aws_elasticache_subnet_group.this',
    when: 'destroy',
    why: 'moto does not implement DeleteCacheSubnetGroup (it answers 500 and the provider retries)',
  },
  {
    address: 'module.eks.aws_eks_cluster.this',
    when: 'read',
    attribute: 'access_config',
    why:
      "moto's DescribeCluster has no accessConfig, so the state keeps none and the next plan replaces the cluster " +
      'to set bootstrap_cluster_creator_admin_permissions (AWS answers it back)',
  },
]

/** A resource instance address without its instance keys: module.a["x"].b.c[0] -> module.a.b.c */
export function configAddress(address: string): string {
  return address.replace(/\[[^\]]*\]/g, '')
}

/** The gaps of one kind. */
export function gapsOf(when: MotoGap['when']): MotoGap[] {
  return MOTO_GAPS.filter((g) => g.when === when)
}
