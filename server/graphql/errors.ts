// GraphQL's error body for what fails before PostGraphile answers (the key
// gate, a missing route): the GraphQL response shape clients read.
import type { ErrorShape } from '../errors.ts';

export const graphqlShape: ErrorShape = (e) => ({ errors: [{ message: e.message, extensions: { code: e.code ?? e.kind } }] });
