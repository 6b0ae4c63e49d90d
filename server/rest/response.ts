// Stage 4: the HTTP answer. Bodies are the JSON (or CSV) Postgres produced,
// sent as they are; this stage adds PostgREST's status, Content-Range,
// Preference-Applied and Location, and unwraps single objects.
import type { Request, Response } from 'express';
import { restErrors } from './errors.ts';
import type { Page } from './plan.ts';
import { acceptOf, type Prefer } from './request.ts';
import type { Relation } from './catalogue.ts';

/** A body Postgres produced, sent as is: res.send without its content-type parsing and freshness checks. */
export function sendBody(req: Request, res: Response, status: number, type: string, body: string): void {
  res.statusCode = status;
  res.setHeader('Content-Type', type);
  res.setHeader('Content-Length', Buffer.byteLength(body));
  res.end(req.method === 'HEAD' ? undefined : body);
}

/** The one row of a JSON array, for `Accept: application/vnd.pgrst.object+json`; 406 unless there is exactly one. */
function onlyRow(body: string, rows: number): string {
  if (rows !== 1) throw restErrors.notOneRow(rows);
  return JSON.stringify(JSON.parse(body)[0]);
}

/** A page of a read: 200, or 206 when a count shows it is partial. */
export function respondRead(req: Request, res: Response, page: Page, offset: number): void {
  const total = page.total === null ? '*' : String(page.total);
  res.setHeader('Content-Range', page.page_rows === 0 ? `*/${total}` : `${offset}-${offset + page.page_rows - 1}/${total}`);
  const { csv, single } = acceptOf(req);
  if (single) return sendBody(req, res, 200, 'application/vnd.pgrst.object+json; charset=utf-8', onlyRow(page.body, page.page_rows));
  const partial = page.total !== null && page.page_rows < page.total;
  sendBody(req, res, partial ? 206 : 200, csv ? 'text/csv; charset=utf-8' : 'application/json; charset=utf-8', page.body);
}

/** What a write sends back, per Prefer: return=representation|headers-only|minimal. */
export function respondWrite(req: Request, res: Response, rel: Relation, status: number, prefer: Prefer, result: { body: string; affected: number }): void {
  res.setHeader('Content-Range', `*/${result.affected}`);
  const applied = [prefer.return && `return=${prefer.return}`, prefer.resolution && `resolution=${prefer.resolution}`].filter(Boolean);
  if (applied.length) res.setHeader('Preference-Applied', applied.join(', '));
  if (prefer.return === 'headers-only' && status === 201 && result.affected === 1) {
    const row = JSON.parse(result.body)[0] as Record<string, unknown>;
    if (rel.primaryKey.length > 0 && rel.primaryKey.every((k) => k in row)) {
      res.setHeader('Location', `/${rel.name}?${rel.primaryKey.map((k) => `${encodeURIComponent(k)}=eq.${encodeURIComponent(String(row[k]))}`).join('&')}`);
    }
  }
  if (prefer.return !== 'representation') return void res.status(status === 200 ? 204 : status).end();
  const body = acceptOf(req).single ? onlyRow(result.body, result.affected) : result.body;
  sendBody(req, res, status, 'application/json; charset=utf-8', body);
}

/**
 * A function's result: 204 with no body for a void function (PostgREST v10+);
 * a set with its Content-Range (the count Prefer asked for), unwrapped to its
 * one row when a single object is asked for; a scalar counted is 0-0/1.
 */
export function respondCall(req: Request, res: Response, result: { body: string | null; page_rows: number; total: number | null }, plan: { returnsSet: boolean; returnsVoid: boolean; offset: number }, prefer: { count?: string } = {}): void {
  if (plan.returnsVoid) return void res.status(204).end();
  const body = result.body ?? 'null';
  if (plan.returnsSet) {
    const total = result.total === null ? '*' : String(result.total);
    res.setHeader('Content-Range', result.page_rows === 0 ? `*/${total}` : `${plan.offset}-${plan.offset + result.page_rows - 1}/${total}`);
  } else if (prefer.count) {
    // A scalar is one row: counted, it is 0-0/1 (as PostgREST v12 answers GET, HEAD and POST).
    res.setHeader('Content-Range', '0-0/1');
  }
  const single = acceptOf(req).single && plan.returnsSet;
  sendBody(req, res, 200, 'application/json; charset=utf-8', single ? onlyRow(body, result.page_rows) : body);
}
