// A page of a source as an image with its text blocks outlined, the boxes
// drawn in the page's own units (PDF points) over the image, so they land
// where the text is at any size; a passage (a search hit) outlined apart.
// The blocks' text is listed below, as text.
import { useEffect, useState } from 'react';
import { ai, must } from '../../api/client.ts';
import { useAsync } from '../../app/useAsync.ts';
import { ErrorNote } from '../../components/ErrorNote.tsx';

type Layout = { text: string; blocks: Array<{ type: string; text: string; bbox: [number, number, number, number] | null }>; size: { width: number; height: number } | null };

export function PageViewer({ sourceId, page, highlight }: { sourceId: string; page: number; highlight?: [number, number, number, number] | null | undefined }) {
  const layout = useAsync(async () => (await must(ai.GET('/api/sources/{id}/page-texts', { params: { path: { id: sourceId }, query: { page: String(page) } } }))) as unknown as Layout, [sourceId, page]);
  const [image, setImage] = useState<string | null>(null);
  useEffect(() => {
    let url: string | null = null;
    let live = true;
    void ai.GET('/api/sources/{id}/derivatives/{type}/download', { params: { path: { id: sourceId, type: 'image' }, query: { index: String(page - 1) } }, parseAs: 'blob' }).then((r) => {
      const blob = r.data as unknown;
      if (!live || !r.response.ok || !(blob instanceof Blob)) return setImage(null);
      url = URL.createObjectURL(blob);
      setImage(url);
    });
    return () => { live = false; if (url) URL.revokeObjectURL(url); };
  }, [sourceId, page]);
  const size = layout.value?.size;
  return (
    <figure className="page-viewer">
      <ErrorNote error={layout.error} />
      {image ? (
        <div className="page-image">
          <img src={image} alt={`Page ${page}`} />
          {size && (
            <svg viewBox={`0 0 ${size.width} ${size.height}`} preserveAspectRatio="none" aria-hidden="true" className="page-boxes">
              {layout.value?.blocks.filter((b) => b.bbox).map((b, i) => <rect key={i} className="block-box" x={b.bbox![0]} y={b.bbox![1]} width={b.bbox![2] - b.bbox![0]} height={b.bbox![3] - b.bbox![1]} />)}
              {highlight && <rect className="hit-box" data-testid="hit-box" x={highlight[0] - 2} y={highlight[1] - 2} width={highlight[2] - highlight[0] + 4} height={highlight[3] - highlight[1] + 4} />}
            </svg>
          )}
        </div>
      ) : <p className="muted">No image of this page.</p>}
      <figcaption>
        Page {page}{layout.value ? `: ${layout.value.blocks.length} text blocks` : ''}{highlight ? ', the passage outlined' : ''}
      </figcaption>
      {layout.value && <pre className="page-text" aria-label={`Text of page ${page}`}>{layout.value.text}</pre>}
    </figure>
  );
}
