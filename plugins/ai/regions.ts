// Places to AWS region codes: "Frankfurt" is eu-central-1, "Ireland" eu-west-1, "Virginia" us-east-1;
// a place with several regions ("Europe", "US East", "Japan") is asked about, with the candidates.
// General knowledge, kept once here: the npm package of AWS regions lists 22 of today's regions, so
// the table is our own (code, city, the country and the area AWS names it by).
export interface Region {
  code: string
  city: string
  country: string
  /** AWS's area name ("US East", "Europe", "Asia Pacific"). */
  area: string
  /** Other names users write for the city or its country. */
  aliases?: string[]
}

export const REGIONS: readonly Region[] = [
  { code: 'us-east-1', city: 'N. Virginia', country: 'United States', area: 'US East', aliases: ['Virginia', 'Northern Virginia'] },
  { code: 'us-east-2', city: 'Ohio', country: 'United States', area: 'US East' },
  { code: 'us-west-1', city: 'N. California', country: 'United States', area: 'US West', aliases: ['California', 'Northern California'] },
  { code: 'us-west-2', city: 'Oregon', country: 'United States', area: 'US West' },
  { code: 'ca-central-1', city: 'Montreal', country: 'Canada', area: 'Canada' },
  { code: 'ca-west-1', city: 'Calgary', country: 'Canada', area: 'Canada' },
  { code: 'mx-central-1', city: 'Querétaro', country: 'Mexico', area: 'Mexico', aliases: ['Queretaro'] },
  { code: 'sa-east-1', city: 'São Paulo', country: 'Brazil', area: 'South America', aliases: ['Sao Paulo'] },
  { code: 'eu-west-1', city: 'Ireland', country: 'Ireland', area: 'Europe', aliases: ['Dublin'] },
  { code: 'eu-west-2', city: 'London', country: 'United Kingdom', area: 'Europe', aliases: ['UK', 'Britain', 'Great Britain', 'England'] },
  { code: 'eu-west-3', city: 'Paris', country: 'France', area: 'Europe' },
  { code: 'eu-central-1', city: 'Frankfurt', country: 'Germany', area: 'Europe' },
  { code: 'eu-central-2', city: 'Zurich', country: 'Switzerland', area: 'Europe', aliases: ['Zürich'] },
  { code: 'eu-north-1', city: 'Stockholm', country: 'Sweden', area: 'Europe' },
  { code: 'eu-south-1', city: 'Milan', country: 'Italy', area: 'Europe' },
  { code: 'eu-south-2', city: 'Spain', country: 'Spain', area: 'Europe', aliases: ['Aragon', 'Madrid'] },
  { code: 'af-south-1', city: 'Cape Town', country: 'South Africa', area: 'Africa' },
  { code: 'me-south-1', city: 'Bahrain', country: 'Bahrain', area: 'Middle East' },
  { code: 'me-central-1', city: 'UAE', country: 'United Arab Emirates', area: 'Middle East', aliases: ['Dubai', 'Abu Dhabi'] },
  { code: 'il-central-1', city: 'Tel Aviv', country: 'Israel', area: 'Israel' },
  { code: 'ap-south-1', city: 'Mumbai', country: 'India', area: 'Asia Pacific' },
  { code: 'ap-south-2', city: 'Hyderabad', country: 'India', area: 'Asia Pacific' },
  { code: 'ap-east-1', city: 'Hong Kong', country: 'Hong Kong', area: 'Asia Pacific' },
  { code: 'ap-east-2', city: 'Taipei', country: 'Taiwan', area: 'Asia Pacific' },
  { code: 'ap-northeast-1', city: 'Tokyo', country: 'Japan', area: 'Asia Pacific' },
  { code: 'ap-northeast-3', city: 'Osaka', country: 'Japan', area: 'Asia Pacific' },
  { code: 'ap-northeast-2', city: 'Seoul', country: 'South Korea', area: 'Asia Pacific', aliases: ['Korea'] },
  { code: 'ap-southeast-1', city: 'Singapore', country: 'Singapore', area: 'Asia Pacific' },
  { code: 'ap-southeast-3', city: 'Jakarta', country: 'Indonesia', area: 'Asia Pacific' },
  { code: 'ap-southeast-5', city: 'Malaysia', country: 'Malaysia', area: 'Asia Pacific', aliases: ['Kuala Lumpur'] },
  { code: 'ap-southeast-7', city: 'Thailand', country: 'Thailand', area: 'Asia Pacific', aliases: ['Bangkok'] },
  { code: 'ap-southeast-2', city: 'Sydney', country: 'Australia', area: 'Asia Pacific' },
  { code: 'ap-southeast-4', city: 'Melbourne', country: 'Australia', area: 'Asia Pacific' },
  { code: 'ap-southeast-6', city: 'New Zealand', country: 'New Zealand', area: 'Asia Pacific', aliases: ['Auckland'] },
]

/** Names of groups of regions that are not a region's own city, country or area. */
const GROUPS: Record<string, (r: Region) => boolean> = {
  USA: (r) => r.country === 'United States',
  'the US': (r) => r.country === 'United States',
  America: (r) => r.country === 'United States',
  'North America': (r) => ['United States', 'Canada', 'Mexico'].includes(r.country),
  EU: (r) => r.area === 'Europe',
  Asia: (r) => r.area === 'Asia Pacific',
  APAC: (r) => r.area === 'Asia Pacific',
  EMEA: (r) => ['Europe', 'Middle East', 'Africa', 'Israel'].includes(r.area),
  'Middle East': (r) => r.area === 'Middle East' || r.area === 'Israel',
  'US East Coast': (r) => r.area === 'US East',
  'US West Coast': (r) => r.area === 'US West',
  'East Coast': (r) => r.area === 'US East',
  'West Coast': (r) => r.area === 'US West',
}

/** Every name a place can be called by, to the regions it stands for. */
function placeNames(): Map<string, { name: string; regions: Region[] }> {
  const names = new Map<string, { name: string; regions: Region[] }>()
  const add = (name: string, r: Region) => {
    const key = name.toLowerCase()
    const place = names.get(key) ?? { name, regions: [] }
    if (!place.regions.includes(r)) names.set(key, { name: place.name, regions: [...place.regions, r] })
  }
  for (const r of REGIONS) {
    for (const name of [r.city, r.country, r.area, ...(r.aliases ?? [])]) add(name, r)
    for (const [group, member] of Object.entries(GROUPS)) if (member(r)) add(group, r)
  }
  return names
}

const NAMES = placeNames()
const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
/** Longest names first, so "US East" wins over "east coast" and "South Korea" over "Korea". */
const PLACE = new RegExp(
  `(?<![\\w-])(${[...NAMES.keys()]
    .sort((a, b) => b.length - a.length)
    .map(escape)
    .join('|')})(?![\\w-])`,
  'i',
)

export interface Place {
  /** The place's name ("Frankfurt", "US East"). */
  name: string
  regions: Region[]
}

/** The place a text names, with the regions it stands for (one, or several to choose from). */
export function placeOf(text: string): Place | null {
  const m = PLACE.exec(text)
  if (!m) return null
  return NAMES.get(m[1].toLowerCase()) ?? null
}

/** "eu-central-1 (Frankfurt)". */
export const describeRegion = (r: Region) => `${r.code} (${r.city})`
