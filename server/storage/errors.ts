// Storage's errors: Supabase Storage's body and the named errors of this
// surface, in one place. SQL raises its own through auth.raise_error (the
// code in HINT); database errors are mapped in calls.ts.
import { apiError, httpTitle, type ApiError, type ErrorShape } from '../errors.ts';

/** {statusCode, error, message}, statusCode as a string. */
export function storageBody(e: ApiError): { statusCode: string; error: string; message: string } {
  return { statusCode: String(e.status), error: e.code ?? httpTitle(e.status) ?? 'Error', message: e.message };
}

export const storageShape: ErrorShape = (e) => storageBody(e);

/** A request that is malformed: Supabase Storage's InvalidRequest. */
const invalid = (message: string) => apiError(400, 'InvalidRequest', message);
const notAnImage = (message: string) => apiError(422, 'InvalidImage', message);

export const storageErrors = {
  invalid,
  missingProperty: (name: string) => invalid(`body must have required property '${name}'`),
  notStringArray: (name: string) => invalid(`body must have an array of strings in '${name}'`),
  expiresIn: () => invalid('expiresIn must be a positive whole number of seconds'),
  expiresInTooLong: (max: number) => invalid(`expiresIn must be at most ${max} seconds`),
  wholeNumbers: () => invalid('limit and offset must be whole numbers'),
  sizeLimit: () => invalid('file_size_limit must be a number of bytes or a size such as "5MB"'),
  mimeTypes: () => invalid('allowed_mime_types must be an array of strings'),
  malformedMultipart: () => invalid('Malformed multipart body'),
  noFile: () => invalid('The form has no file'),
  metadataNotJson: () => invalid('metadata must be JSON'),
  tusMetadata: () => invalid('Upload-Metadata must have bucketName and objectName'),
  tusMetadataNotJson: () => invalid('Upload-Metadata metadata must be JSON'),
  transform: (message: string) => invalid(message),
  bucketNotFound: () => apiError(404, 'Bucket not found', 'Bucket not found'),
  /** A public read from a bucket that is not public: Supabase answers 400. */
  bucketNotPublic: () => apiError(400, 'Bucket not found', 'Bucket not found'),
  objectNotFound: () => apiError(404, 'not_found', 'Object not found'),
  mimeType: (type: string) => apiError(415, 'invalid_mime_type', `mime type ${type} is not supported`),
  tooLarge: () => apiError(413, 'Payload too large', 'The object exceeded the maximum allowed size'),
  range: () => apiError(416, 'InvalidRange', 'Range Not Satisfiable'),
  rlsDenied: (cause: unknown) => apiError(403, 'Unauthorized', 'new row violates row-level security policy', { kind: 'rls_denied', cause }),
  missingAuthorization: () => apiError(401, undefined, 'Missing authorization'),
  missingToken: () => apiError(400, 'InvalidJWT', 'Missing token'),
  badToken: (expired: boolean) => apiError(400, 'InvalidJWT', expired ? 'jwt expired' : 'invalid signature'),
  tokenForOtherObject: () => apiError(400, 'InvalidSignature', 'The token does not match this object'),
  transformNotSigned: () => apiError(400, 'InvalidSignature', 'The transformation does not match the signed one'),
  databaseUnavailable: () => apiError(503, undefined, 'The database is unavailable; retry shortly'),
  sourceTooLarge: (mb: number) => notAnImage(`Images larger than ${mb} MB are not transformed`),
  notAnImage: () => notAnImage('The object is not an image that can be transformed'),
  formatNotTransformed: (format: string) => notAnImage(`Images of format ${format} are not transformed`),
  tooManyPixels: (max: number) => notAnImage(`The source image has more than ${max} pixels`),
  transformFailed: (reason: string) => notAnImage(`The image could not be transformed: ${reason}`),
  renderTooLarge: (max: number) => notAnImage(`The rendered image is larger than ${max} bytes; ask for a smaller size or quality`),
};
