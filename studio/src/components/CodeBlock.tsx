// Text shown as it is (SQL, JSON, a file's text), in a box that scrolls when
// it is long: in the tab order and named, so a keyboard reaches and scrolls
// it and a screen reader says what it is.
export function CodeBlock({ label, className = 'code', children }: { label: string; className?: string; children: string }) {
  return <pre className={className} tabIndex={0} role="group" aria-label={label}>{children}</pre>;
}
