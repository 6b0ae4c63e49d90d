// A JWT whose signature is wrong for sure: one character in the middle of the
// signature changed (changing the last one may only touch padding bits that
// base64url decoders ignore, which leaves the signature valid).
export function tamper(token: string): string {
  const at = token.lastIndexOf('.') + 10;
  return token.slice(0, at) + (token[at] === 'A' ? 'B' : 'A') + token.slice(at + 1);
}
