// Markdown from a model, a document, a tool or a user, rendered as React
// elements, never as HTML: raw HTML in it is dropped (not parsed into the
// page), link addresses other than http(s), mailto and relative ones are
// emptied by react-markdown's URL check, links open in a new tab with
// rel=noopener noreferrer, and images are never loaded (they could come
// from anywhere): each is shown as its alt text. Very long texts are cut,
// so a document cannot stall the page.
import type { ComponentProps } from 'react';
import ReactMarkdown, { type Components } from 'react-markdown';
import remarkGfm from 'remark-gfm';

/** Beyond this many characters the rest is left out (with a note). */
const MAX_CHARS = 200_000;

const components: Components = {
  a: ({ href, children }: ComponentProps<'a'>) => <a href={href} target="_blank" rel="noopener noreferrer">{children}</a>,
  img: ({ alt }: ComponentProps<'img'>) => <span className="md-image">[image{alt ? `: ${alt}` : ''}]</span>,
};

/** `label`: the text is a region of its own (named, scrolled, reached with Tab); without one it is part of what holds it. */
export function Markdown({ text, label, className = '' }: { text: string; label?: string; className?: string }) {
  const cut = text.length > MAX_CHARS;
  const Holder = label ? 'section' : 'div';
  return (
    <Holder className={`markdown ${className}`.trim()} {...(label ? { 'aria-label': label, tabIndex: 0 } : {})}>
      <ReactMarkdown remarkPlugins={[remarkGfm]} skipHtml components={components}>{cut ? text.slice(0, MAX_CHARS) : text}</ReactMarkdown>
      {cut && <p className="small muted">Shown up to {MAX_CHARS.toLocaleString('en')} of {text.length.toLocaleString('en')} characters.</p>}
    </Holder>
  );
}
