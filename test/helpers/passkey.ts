// A software authenticator for passkey tests: a real P-256 key pair made in
// the test, answering WebAuthn's two ceremonies as a platform authenticator
// does (attestation "none"): the client data JSON with the challenge and
// origin, the authenticator data (the relying party's hash, flags, the
// signature counter, on registration the credential and its COSE public
// key), and on authentication an ECDSA signature over both. Its answers are
// shaped as a browser's PublicKeyCredential (toJSON), which auth-js sends on.
// The CBOR is encoded here, not by the library the server checks with.
import { createHash, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';

interface CborObject { [key: string]: Cbor }
type Cbor = number | string | Uint8Array | Map<number | string, Cbor> | CborObject;

function head(major: number, n: number): Buffer {
  if (n < 24) return Buffer.from([(major << 5) | n]);
  if (n < 256) return Buffer.from([(major << 5) | 24, n]);
  if (n < 65536) return Buffer.from([(major << 5) | 25, n >> 8, n & 0xff]);
  const b = Buffer.alloc(5);
  b[0] = (major << 5) | 26;
  b.writeUInt32BE(n, 1);
  return b;
}

/** The CBOR subset attestation objects and COSE keys use: integers, byte and text strings, maps. */
export function cbor(value: Cbor): Buffer {
  if (typeof value === 'number') return value >= 0 ? head(0, value) : head(1, -1 - value);
  if (typeof value === 'string') return Buffer.concat([head(3, Buffer.byteLength(value)), Buffer.from(value)]);
  if (value instanceof Uint8Array) return Buffer.concat([head(2, value.length), value]);
  const entries = value instanceof Map ? [...value.entries()] : Object.entries(value);
  return Buffer.concat([head(5, entries.length), ...entries.flatMap(([k, v]) => [cbor(k), cbor(v)])]);
}

const sha256 = (b: Buffer | string) => createHash('sha256').update(b).digest();
const b64url = (b: ArrayBuffer | Uint8Array) => Buffer.from(b instanceof Uint8Array ? b : new Uint8Array(b)).toString('base64url');
/** Options carry binary fields as ArrayBuffers (auth-js's mfa, as a browser gets them) or base64url strings (the passkey API's JSON). */
const bytes = (v: ArrayBuffer | string) => (typeof v === 'string' ? Buffer.from(v, 'base64url') : Buffer.from(new Uint8Array(v)));

export type Passkey = {
  id: string;
  /** navigator.credentials.create() for these options, from `origin`. */
  create: (options: { challenge: ArrayBuffer | string; rp: { id?: string }; user?: { id: ArrayBuffer | string } }, origin: string) => { toJSON: () => object };
  /** navigator.credentials.get() for these options, from `origin`; a discoverable credential answers with its user handle. */
  get: (options: { challenge: ArrayBuffer | string; rpId?: string }, origin: string) => { toJSON: () => object };
};

/** A new authenticator with one credential; `counterStep` 0 makes a clone that never moves its counter. */
export function softwarePasskey(opts: { counterStep?: number; keys?: { privateKey: KeyObject; publicKey: KeyObject }; id?: Buffer } = {}): Passkey {
  const { privateKey, publicKey } = opts.keys ?? generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const credentialId = opts.id ?? randomBytes(16);
  const jwk = publicKey.export({ format: 'jwk' }) as { x: string; y: string };
  const coseKey = cbor(new Map<number, Cbor>([[1, 2], [3, -7], [-1, 1], [-2, Buffer.from(jwk.x, 'base64url')], [-3, Buffer.from(jwk.y, 'base64url')]]));
  let counter = 0;
  let userHandle: Buffer | undefined;
  const clientData = (type: string, challenge: ArrayBuffer | string, origin: string) => Buffer.from(JSON.stringify({ type, challenge: b64url(bytes(challenge)), origin, crossOrigin: false }));
  const counterBytes = () => {
    const b = Buffer.alloc(4);
    b.writeUInt32BE(counter);
    return b;
  };
  return {
    id: credentialId.toString('base64url'),
    create: (options, origin) => {
      if (options.user) userHandle = bytes(options.user.id);
      const rpId = options.rp.id ?? new URL(origin).hostname;
      const idLength = Buffer.alloc(2);
      idLength.writeUInt16BE(credentialId.length);
      // Flags: user present (0x01), user verified (0x04), attested credential data (0x40).
      const authData = Buffer.concat([sha256(rpId), Buffer.from([0x45]), counterBytes(), Buffer.alloc(16), idLength, credentialId, coseKey]);
      const attestationObject = cbor({ fmt: 'none', attStmt: {}, authData });
      const clientDataJSON = clientData('webauthn.create', options.challenge, origin);
      return {
        toJSON: () => ({
          id: b64url(credentialId), rawId: b64url(credentialId), type: 'public-key', authenticatorAttachment: 'platform', clientExtensionResults: {},
          response: { clientDataJSON: b64url(clientDataJSON), attestationObject: b64url(attestationObject), transports: ['internal'] },
        }),
      };
    },
    get: (options, origin) => {
      counter += opts.counterStep ?? 1;
      const rpId = options.rpId ?? new URL(origin).hostname;
      const authData = Buffer.concat([sha256(rpId), Buffer.from([0x05]), counterBytes()]);
      const clientDataJSON = clientData('webauthn.get', options.challenge, origin);
      const signature = sign('sha256', Buffer.concat([authData, sha256(clientDataJSON)]), privateKey);
      return {
        toJSON: () => ({
          id: b64url(credentialId), rawId: b64url(credentialId), type: 'public-key', authenticatorAttachment: 'platform', clientExtensionResults: {},
          response: { clientDataJSON: b64url(clientDataJSON), authenticatorData: b64url(authData), signature: b64url(signature), ...(userHandle ? { userHandle: b64url(userHandle) } : {}) },
        }),
      };
    },
  };
}
