/**
 * TLS for browser mode when it listens beyond loopback: a self-signed certificate, made
 * once and kept (0600) so its fingerprint stays the same from run to run; the user checks
 * that fingerprint against the one Porthole prints when the browser asks about it.
 */
import { X509Certificate } from 'node:crypto';
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { hostname, networkInterfaces } from 'node:os';
import { join } from 'node:path';
import selfsigned from 'selfsigned';

export interface HostTls {
  /** PEM private key. */
  readonly key: string;
  /** PEM certificate. */
  readonly cert: string;
}

/** `AB:CD:…`, the SHA-256 fingerprint browsers show for a certificate. */
export function certificateFingerprint(cert: string): string {
  return new X509Certificate(cert).fingerprint256;
}

/** The names this machine answers to: what the certificate lists as subject alt names. */
export function localNames(): { dns: string[]; ips: string[] } {
  const ips = new Set(['127.0.0.1', '::1']);
  for (const addresses of Object.values(networkInterfaces())) {
    for (const address of addresses ?? []) ips.add(address.address.replace(/%.*$/, ''));
  }
  return { dns: [...new Set(['localhost', hostname()])], ips: [...ips] };
}

const validDays = 365;
/** A certificate this close to its end is made anew. */
const renewWithinMs = 7 * 24 * 3600 * 1000;

function usable(tls: HostTls, names: { ips: readonly string[] }): boolean {
  try {
    const certificate = new X509Certificate(tls.cert);
    if (Date.parse(certificate.validTo) - Date.now() < renewWithinMs) return false;
    // A machine that gained an address since: the certificate must name it.
    return names.ips.every((ip) => certificate.checkIP(ip) !== undefined);
  } catch {
    return false;
  }
}

/**
 * The certificate kept in `dir` (key.pem, cert.pem), made when missing, unreadable,
 * about to expire or not naming every address of this machine.
 */
export async function loadOrCreateCertificate(
  dir: string,
  names = localNames(),
): Promise<HostTls & { readonly created: boolean }> {
  const keyPath = join(dir, 'key.pem');
  const certPath = join(dir, 'cert.pem');
  try {
    const kept = { key: await readFile(keyPath, 'utf8'), cert: await readFile(certPath, 'utf8') };
    if (usable(kept, names)) return { ...kept, created: false };
  } catch {
    // Missing or unreadable: make one.
  }
  const now = Date.now();
  const generated = await selfsigned.generate([{ name: 'commonName', value: 'Porthole' }], {
    keyType: 'ec',
    curve: 'P-256',
    algorithm: 'sha256',
    notBeforeDate: new Date(now - 60_000),
    notAfterDate: new Date(now + validDays * 24 * 3600 * 1000),
    extensions: [
      { name: 'basicConstraints', cA: false, critical: true },
      { name: 'keyUsage', digitalSignature: true, critical: true },
      { name: 'extKeyUsage', serverAuth: true },
      {
        name: 'subjectAltName',
        altNames: [
          ...names.dns.map((value) => ({ type: 2 as const, value })),
          ...names.ips.map((ip) => ({ type: 7 as const, ip })),
        ],
      },
    ],
  });
  await mkdir(dir, { recursive: true, mode: 0o700 });
  await chmod(dir, 0o700);
  await writeFile(keyPath, generated.private, { mode: 0o600 });
  await chmod(keyPath, 0o600);
  await writeFile(certPath, generated.cert, { mode: 0o644 });
  return { key: generated.private, cert: generated.cert, created: true };
}
