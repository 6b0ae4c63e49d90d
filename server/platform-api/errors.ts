// The control plane's error body: the spec's {code, message}, code `unauthorized` on 401.
import type { ErrorShape } from '../errors.ts';

export const platformShape: ErrorShape = (e) => ({ code: e.code ?? e.kind, message: e.message });
