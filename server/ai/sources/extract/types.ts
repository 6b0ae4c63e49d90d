// What an extractor gives back, whatever the format: the document as
// markdown and plain text, its text per page (a sheet or a section counts as
// a page where the format has no pages), its elements with their page (for
// page-exact citations later), and images it carries.
export type ElementType = 'heading' | 'paragraph' | 'table' | 'list' | 'figure';
/** bbox: [left, top, right, bottom] in PDF points from the page's top-left, where the extractor knows it. */
export type Element = { page: number; type: ElementType; text: string; level?: number; bbox?: [number, number, number, number] };
export type Extracted = {
  engine: string;
  markdown: string;
  text: string;
  pages: string[];
  elements: Element[];
  images: Array<{ page: number | null; bytes: Buffer; contentType: string }>;
  /** Each page's width and height in PDF points, where the format has them (the frame of the elements' bboxes). */
  page_sizes?: Array<[number, number]>;
  /** Set when the result needs a person: why (a PDF with no text layer, say). */
  attention?: string;
  /** What the user should know about a result that is fine (an engine that fell back to another). */
  note?: string;
};

/** Reports pages done of total; rejects (Stopped) when the extraction should end (cancelled, re-queued). */
export type Progress = (done: number, total: number) => Promise<void>;

/** How to extract: the source's extraction_model (auto, text, ocr, vision, ...), and the vision engine when it may be used. */
export type ExtractOptions = { model: string; vision?: (image: Buffer, page: number) => Promise<string> };

export type Extractor = (bytes: Buffer, progress: Progress, opts: ExtractOptions) => Promise<Extracted>;

// Unreadable files throw Failure (failures.ts); a cancelled or replaced run, Stopped.
