// Version comparison as KIM does it (Masterminds/semver/v3 NewVersion): lenient about missing
// minor/patch ("1.28" is 1.28.0), pre-releases sort lower, build metadata is ignored.

interface Version {
  major: number;
  minor: number;
  patch: number;
  prerelease: string[];
}

const LENIENT_SEMVER =
  /^v?(\d+)(?:\.(\d+))?(?:\.(\d+))?(?:-([0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?(?:\+[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?$/;

export function parseVersion(text: string): Version | undefined {
  const m = LENIENT_SEMVER.exec(text);
  if (!m) return undefined;
  return {
    major: Number(m[1]),
    minor: Number(m[2] ?? 0),
    patch: Number(m[3] ?? 0),
    prerelease: m[4] ? m[4].split('.') : [],
  };
}

/** -1, 0 or 1 like Masterminds' Compare; throws when either side is not a version. */
export function compareVersions(a: string, b: string): -1 | 0 | 1 {
  const va = parseVersion(a);
  const vb = parseVersion(b);
  if (!va) throw new Error(`invalid version "${a}"`);
  if (!vb) throw new Error(`invalid version "${b}"`);
  return (
    sign(va.major - vb.major) ||
    sign(va.minor - vb.minor) ||
    sign(va.patch - vb.patch) ||
    comparePrerelease(va.prerelease, vb.prerelease)
  );
}

/** The higher of two versions; when either does not parse, the desired one (KIM keeps it on error). */
export function neverDowngrade(desired: string, live: string | undefined): string {
  if (live === undefined || live === '') return desired;
  try {
    return compareVersions(desired, live) < 0 ? live : desired;
  } catch {
    return desired;
  }
}

function comparePrerelease(a: string[], b: string[]): -1 | 0 | 1 {
  if (a.length === 0 || b.length === 0) return sign(b.length - a.length);
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const x = a[i];
    const y = b[i];
    if (x === undefined) return -1;
    if (y === undefined) return 1;
    const c = compareIdentifier(x, y);
    if (c !== 0) return c;
  }
  return 0;
}

function compareIdentifier(x: string, y: string): -1 | 0 | 1 {
  const xNum = /^\d+$/.test(x);
  const yNum = /^\d+$/.test(y);
  if (xNum && yNum) return sign(Number(x) - Number(y));
  if (xNum !== yNum) return xNum ? -1 : 1;
  return x < y ? -1 : x > y ? 1 : 0;
}

function sign(n: number): -1 | 0 | 1 {
  return n < 0 ? -1 : n > 0 ? 1 : 0;
}
