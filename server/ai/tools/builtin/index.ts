// The eight builtin tools (spec 2.3b), each one definition in its own file
// (types.ts says what a tool is). This list is the only place they are
// enumerated: GET /api/tools, assignments and the runner read it.
import type { BuiltinTool } from '../types.ts';
import { codeExecute } from './code-execute.ts';
import { databaseQuery } from './database-query.ts';
import { databaseWrite } from './database-write.ts';
import { httpRequest } from './http-request.ts';
import { storageRead } from './storage-read.ts';
import { storageWrite } from './storage-write.ts';
import { webScrape } from './web-scrape.ts';
import { webSearch } from './web-search.ts';

export const BUILTIN_TOOLS: readonly BuiltinTool[] = [databaseQuery, databaseWrite, httpRequest, codeExecute, storageRead, storageWrite, webSearch, webScrape];

/** The builtin tool of that name, if there is one. */
export const builtinTool = (name: string): BuiltinTool | undefined => BUILTIN_TOOLS.find((t) => t.name === name);
