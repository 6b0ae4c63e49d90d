import type { ReactNode } from 'react';

/** The centred card the pages before sign-in share. */
export function AuthCard({ title, children, brand = 'pgbase Studio' }: { title: string; children: ReactNode; brand?: string }) {
  return (
    <main className="auth-page">
      <div className="auth-card">
        <p className="brand" aria-hidden="true">{brand}</p>
        <h1>{title}</h1>
        {children}
      </div>
    </main>
  );
}
