// A wide table or list that scrolls on its own: in the tab order and named,
// so the keyboard can scroll it too (arrow keys once it has the focus).
import type { ReactNode } from 'react';

export function ScrollArea({ label, className = 'table-scroll', children }: { label: string; className?: string; children: ReactNode }) {
  return <div className={className} tabIndex={0} role="region" aria-label={label}>{children}</div>;
}
