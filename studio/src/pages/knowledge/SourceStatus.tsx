// A source's extraction status in words, with pages done of total while it runs.
import type { components } from '../../api/ai/index.ts';

export function SourceStatus({ source }: { source: components['schemas']['Source'] }) {
  const s = source.extraction_status;
  const kind = s === 'extracted' ? 'badge-ok' : s === 'failed' || s === 'attention_required' ? 'badge-error' : 'badge-info';
  const pages = source.progress.pages_total ? ` ${source.progress.pages_done}/${source.progress.pages_total} pages` : '';
  return <span><span className={`badge ${kind}`}>{s.replace('_', ' ')}</span>{s === 'extracting' ? pages : ''}</span>;
}
