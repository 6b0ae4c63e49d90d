import type { ReactNode } from 'react';

/** The centred card the pages before sign-in share. */
export function AuthCard({ title, children }: { title: string; children: ReactNode }) {
  return (
    <main className="auth-page">
      <div className="auth-card">
        <p className="brand" aria-hidden="true">pgbase Studio</p>
        <h1>{title}</h1>
        {children}
      </div>
    </main>
  );
}
