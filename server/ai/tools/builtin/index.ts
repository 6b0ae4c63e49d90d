// The eight builtin tools (spec 2.3b): each file holds one tool's name,
// description and input JSON Schema (its implementation joins it with the
// agents surface). This list is the only place they are enumerated.
import { codeExecute } from './code-execute.ts';
import { databaseQuery } from './database-query.ts';
import { databaseWrite } from './database-write.ts';
import { httpRequest } from './http-request.ts';
import { storageRead } from './storage-read.ts';
import { storageWrite } from './storage-write.ts';
import { webScrape } from './web-scrape.ts';
import { webSearch } from './web-search.ts';

export type BuiltinTool = { name: string; description: string; inputSchema: Record<string, unknown> };

export const BUILTIN_TOOLS: readonly BuiltinTool[] = [databaseQuery, databaseWrite, httpRequest, codeExecute, storageRead, storageWrite, webSearch, webScrape];
