// Whether a password is the one a role's stored verifier (pg_authid.rolpassword)
// was made from: SCRAM-SHA-256 (RFC 5802/7677, as PostgreSQL stores it) or
// the older md5. Lets a process check a login it derives before using it,
// where the server would not (trust authentication) or not yet.
import { createHash, createHmac, pbkdf2Sync, timingSafeEqual } from 'node:crypto';

export function passwordMatches(stored: string, role: string, password: string): boolean {
  const scram = /^SCRAM-SHA-256\$(\d+):([^$]+)\$([^:]+):(.+)$/.exec(stored);
  if (scram) {
    const salted = pbkdf2Sync(password.normalize('NFKC'), Buffer.from(scram[2]!, 'base64'), Number(scram[1]), 32, 'sha256');
    const storedKey = createHash('sha256').update(createHmac('sha256', salted).update('Client Key').digest()).digest();
    const expected = Buffer.from(scram[3]!, 'base64');
    return expected.length === storedKey.length && timingSafeEqual(expected, storedKey);
  }
  if (/^md5[0-9a-f]{32}$/.test(stored)) return stored === `md5${createHash('md5').update(password + role).digest('hex')}`;
  return false;
}
