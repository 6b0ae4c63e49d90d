// A model's JSON answer as models give it: sometimes wrapped in a ```json
// fence despite JSON mode. Throws SyntaxError as JSON.parse does, so each
// caller decides what a bad answer means for its step.
export function parseModelJson(content: string | null | undefined): unknown {
  return JSON.parse((content ?? '').replace(/^```(?:json)?\s*|\s*```$/g, ''));
}
